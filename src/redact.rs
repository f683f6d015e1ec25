//! TEMPORARY STUB (helper is writing the real one)
#[derive(Clone, Default, Debug)]
pub struct Redactor { s: Vec<String> }
impl Redactor {
    pub fn new() -> Self { Self::default() }
    pub fn add_secret(&mut self, v: &str) { self.s.push(v.to_string()) }
    pub fn redact_text(&self, t: &str) -> String { let mut o = t.to_string(); for s in &self.s { o = o.replace(s, "[REDACTED]"); } o }
    pub fn redact_url(&self, t: &str) -> String { self.redact_text(t) }
    pub fn redact_json_text(&self, t: &str) -> String { self.redact_text(t) }
}
