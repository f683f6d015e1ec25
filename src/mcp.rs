//! Placeholder until the MCP server lands.
use std::sync::Arc;

use crate::lookup::Engine;
use crate::output::Printer;

pub async fn serve(_engine: Arc<Engine>, _printer: Printer) -> Result<(), String> {
    Err("mcp: not built yet".into())
}
