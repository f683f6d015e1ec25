//! The receipt's evidence fields (DESIGN §14) and the evidence kept for a WARC writer,
//! for the attempt that was used. Apart from the attempt loop so that the loop only hands
//! values over: what the fields mean is decided here.

use sha2::{Digest, Sha256};

use crate::fetch::evidence::{rfc3339, Exchange, Provenance};
use crate::fetch::provider::Payload;
use crate::model::receipt::Receipt;
use crate::redact::Redactor;

/// Hex SHA-256 of a body as received (after Content-Encoding and chunking were undone,
/// before charset decoding): the receipt's `body_sha256`.
pub fn body_sha256(body: &[u8]) -> String {
    hex::encode(Sha256::digest(body))
}

/// The exchange of an attempt, redacted with the lookup's redactor, when evidence is
/// `wanted` and its body came over the network in this attempt.
pub fn exchange(payload: &Payload, redactor: &Redactor, wanted: bool) -> Option<Exchange> {
    let captured = payload.captured.as_ref().filter(|_| wanted)?;
    Some(captured.redact(redactor))
}

/// Fill in the provenance fields of a successful receipt. `final_url` and `redirects` only
/// when the route is known (an `http` provider's); both values are redacted already.
pub fn fill(receipt: &mut Receipt, provenance: Option<Provenance>, body_sha256: String) {
    receipt.body_sha256 = Some(body_sha256);
    let Some(p) = provenance else {
        return;
    };
    receipt.fetched_at = Some(rfc3339(p.fetched_at));
    if let Some(route) = p.route {
        receipt.final_url = Some(route.final_url);
        receipt.redirects = Some(route.redirects);
    }
}
