//! The tool's public face: its name, a description written for a model, the JSON Schemas
//! (kept as files under `schemas/` and embedded here), and the tool spec in each agent
//! ecosystem's wrapper shape.
//!
//! One source of truth: `schemas/tool-input.json`. The model-facing input schema is a view of
//! it restricted to the keywords every model API accepts ([`MODEL_KEYWORDS`]).

use serde_json::{json, Map, Value};

/// The tool's name in every ecosystem.
pub const TOOL_NAME: &str = "verified_web_lookup";

/// What a model reads before deciding to call the tool.
pub const DESCRIPTION: &str = "Fetch a web page and return its readable content, verified. \
The result's status is \"success\" only when usable content came back; it is \"error\" when \
the page could not be fetched or was not usable (an HTTP error, an empty page, a bot \
challenge such as \"Just a moment...\", a cookie wall, a page shorter than min_chars or \
missing must_contain). Never treat an error result as page content. The first content block \
is a receipt: ok, attempts made, each attempt's provider and outcome with a short detail, \
failure_reason, content_chars and next_start_index (set when the page continues: call again \
with start_index set to it to read more). Pass must_contain with a word or phrase you expect \
on the right page, so that a wrong page counts as a failure.";

/// The agent ecosystems whose tool-spec wrapper `vetch tool-spec` can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// Strands Agents' `ToolSpec`: `{name, description, inputSchema: {json}}`.
    Strands,
    /// Bedrock Converse's `toolConfig.tools` entry: the Strands spec under `toolSpec`.
    Bedrock,
    Openai,
    Anthropic,
    Gemini,
    Mcp,
}

impl Flavor {
    /// The lowercase name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Flavor::Strands => "strands",
            Flavor::Bedrock => "bedrock",
            Flavor::Openai => "openai",
            Flavor::Anthropic => "anthropic",
            Flavor::Gemini => "gemini",
            Flavor::Mcp => "mcp",
        }
    }
}

/// The published JSON Schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaName {
    Receipt,
    ToolResult,
    ToolInput,
}

impl SchemaName {
    /// The kebab-case name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaName::Receipt => "receipt",
            SchemaName::ToolResult => "tool-result",
            SchemaName::ToolInput => "tool-input",
        }
    }
}

const RECEIPT_SCHEMA_TEXT: &str = include_str!("../../schemas/receipt.json");
const TOOL_RESULT_SCHEMA_TEXT: &str = include_str!("../../schemas/tool-result.json");
const TOOL_INPUT_SCHEMA_TEXT: &str = include_str!("../../schemas/tool-input.json");

/// The only keywords the model-facing input schema may use.
pub const MODEL_KEYWORDS: [&str; 7] = [
    "type",
    "properties",
    "required",
    "description",
    "minimum",
    "maximum",
    "default",
];

/// The text of a published schema, exactly as in `schemas/`.
pub fn schema_text(name: SchemaName) -> &'static str {
    match name {
        SchemaName::Receipt => RECEIPT_SCHEMA_TEXT,
        SchemaName::ToolResult => TOOL_RESULT_SCHEMA_TEXT,
        SchemaName::ToolInput => TOOL_INPUT_SCHEMA_TEXT,
    }
}

/// A published schema as a value. The embedded files are checked by tests, so a parse
/// failure here cannot happen at run time; it degrades to an empty object all the same.
pub fn schema(name: SchemaName) -> Value {
    serde_json::from_str(schema_text(name)).unwrap_or_else(|_| json!({}))
}

/// Keep only [`MODEL_KEYWORDS`] (recursing into `properties`).
fn model_view(v: &Value) -> Value {
    let Value::Object(map) = v else {
        return v.clone();
    };
    let mut out = Map::new();
    for (k, val) in map {
        if !MODEL_KEYWORDS.contains(&k.as_str()) {
            continue;
        }
        if k == "properties" {
            if let Value::Object(props) = val {
                let p: Map<String, Value> = props
                    .iter()
                    .map(|(name, s)| (name.clone(), model_view(s)))
                    .collect();
                out.insert(k.clone(), Value::Object(p));
                continue;
            }
        }
        out.insert(k.clone(), val.clone());
    }
    Value::Object(out)
}

/// The model-facing input schema.
pub fn input_schema() -> Value {
    model_view(&schema(SchemaName::ToolInput))
}

/// The receipt schema without `$schema`/`$id`, as MCP's `outputSchema`.
pub fn output_schema() -> Value {
    let mut v = schema(SchemaName::Receipt);
    if let Value::Object(m) = &mut v {
        m.remove("$schema");
        m.remove("$id");
    }
    v
}

/// The tool spec in one ecosystem's shape.
pub fn tool_spec(flavor: Flavor) -> Value {
    let params = input_schema();
    match flavor {
        // Strands takes this object as a tool's spec (`name` at the top; its inputSchema
        // is Bedrock's `{"json": ...}`), and a Converse request wraps it in `toolSpec`.
        Flavor::Strands => json!({
            "name": TOOL_NAME,
            "description": DESCRIPTION,
            "inputSchema": {"json": params}
        }),
        Flavor::Bedrock => json!({ "toolSpec": tool_spec(Flavor::Strands) }),
        Flavor::Openai => json!({
            "type": "function",
            "function": {
                "name": TOOL_NAME,
                "description": DESCRIPTION,
                "parameters": params
            }
        }),
        Flavor::Anthropic => json!({
            "name": TOOL_NAME,
            "description": DESCRIPTION,
            "input_schema": params
        }),
        Flavor::Gemini => json!({
            "functionDeclarations": [{
                "name": TOOL_NAME,
                "description": DESCRIPTION,
                "parameters": params
            }]
        }),
        Flavor::Mcp => json!({
            "name": TOOL_NAME,
            "description": DESCRIPTION,
            "inputSchema": params,
            "outputSchema": output_schema()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keywords(v: &Value, out: &mut Vec<String>) {
        if let Value::Object(m) = v {
            for (k, val) in m {
                out.push(k.clone());
                if k == "properties" {
                    if let Value::Object(props) = val {
                        props.values().for_each(|p| keywords(p, out));
                    }
                }
            }
        }
    }

    #[test]
    fn embedded_schemas_parse() {
        for n in [
            SchemaName::Receipt,
            SchemaName::ToolResult,
            SchemaName::ToolInput,
        ] {
            let v: Value = serde_json::from_str(schema_text(n)).unwrap();
            assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
            assert!(v["$id"].as_str().unwrap().ends_with(":v1"));
        }
    }

    #[test]
    fn tool_result_embeds_the_receipt_schema() {
        let tr = schema(SchemaName::ToolResult);
        let mut r = schema(SchemaName::Receipt);
        let m = r.as_object_mut().unwrap();
        m.remove("$schema");
        m.remove("$id");
        assert_eq!(tr["$defs"]["receipt"], r);
    }

    #[test]
    fn model_schema_uses_only_the_subset() {
        let mut ks = Vec::new();
        keywords(&input_schema(), &mut ks);
        for k in ks {
            assert!(MODEL_KEYWORDS.contains(&k.as_str()), "keyword {k}");
        }
        assert_eq!(input_schema()["required"], json!(["url"]));
    }

    #[test]
    fn every_flavor_carries_the_same_schema() {
        let s = input_schema();
        assert_eq!(tool_spec(Flavor::Strands)["inputSchema"]["json"], s);
        assert_eq!(
            tool_spec(Flavor::Bedrock)["toolSpec"],
            tool_spec(Flavor::Strands)
        );
        assert_eq!(tool_spec(Flavor::Openai)["function"]["parameters"], s);
        assert_eq!(tool_spec(Flavor::Anthropic)["input_schema"], s);
        assert_eq!(
            tool_spec(Flavor::Gemini)["functionDeclarations"][0]["parameters"],
            s
        );
        assert_eq!(tool_spec(Flavor::Mcp)["inputSchema"], s);
    }

    #[test]
    fn input_fields_match_the_schema() {
        let props = input_schema()["properties"].as_object().unwrap().clone();
        let names: Vec<&str> = props.keys().map(String::as_str).collect();
        assert_eq!(names, crate::model::input::INPUT_FIELDS);
    }
}
