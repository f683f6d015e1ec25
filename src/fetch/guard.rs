//! The network policy: which URLs, host names and addresses `vetch` may connect to
//! ("Network safety" in docs/reference.md).
//!
//! Everything here is pure: classification of IP addresses ([`classify_ip`]) and the
//! decisions of a [`NetworkPolicy`] about a URL ([`NetworkPolicy::check_url`], for the
//! requested URL and for every redirect hop) and about each address a host name resolved to
//! ([`NetworkPolicy::check_resolved`], for the DNS resolver on every connection). The HTTP
//! glue calls these three layers; reqwest never calls the resolver for IP-literal hosts,
//! so the host itself is checked too.
//!
//! This module must never do I/O: no DNS lookups, no sockets, no clock, no environment, no
//! logging. It never panics on any input and never matches addresses as strings: addresses
//! are classified with std's `Ipv4Addr`/`Ipv6Addr` methods and `ipnet` CIDR ranges. A
//! [`Refusal`] names the host or address and its class, nothing else (no path, query or
//! credentials), so its text is safe to put in a receipt after the caller's `blocked: `.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{Ipv4Net, Ipv6Net};
use url::{Host, Url};

pub use crate::model::failure::{AddrClass, Refusal};

const fn v4net(a: u8, b: u8, c: u8, d: u8, len: u8) -> Ipv4Net {
    Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), len)
}

const fn v6net(s: [u16; 8], len: u8) -> Ipv6Net {
    Ipv6Net::new_assert(
        Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]),
        len,
    )
}

/// Cloud metadata addresses: AWS/GCP/Azure/OCI/DigitalOcean/... IMDS, AWS ECS task
/// credentials, EKS Pod Identity, Tencent Cloud, Alibaba Cloud, legacy Oracle Cloud.
const METADATA_V4: [Ipv4Addr; 6] = [
    Ipv4Addr::new(169, 254, 169, 254),
    Ipv4Addr::new(169, 254, 170, 2),
    Ipv4Addr::new(169, 254, 170, 23),
    Ipv4Addr::new(169, 254, 0, 23),
    Ipv4Addr::new(100, 100, 100, 200),
    Ipv4Addr::new(192, 0, 0, 192),
];

/// AWS IMDS and EKS Pod Identity over IPv6.
const METADATA_V6: [Ipv6Addr; 2] = [
    Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254),
    Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0023),
];

/// IPv4 ranges std does not classify on stable Rust, checked after std's methods.
const V4_RANGES: [(Ipv4Net, AddrClass); 6] = [
    (v4net(0, 0, 0, 0, 8), AddrClass::Reserved), // "this network"
    (v4net(100, 64, 0, 0, 10), AddrClass::SharedCgnat),
    (v4net(192, 0, 0, 0, 24), AddrClass::Reserved), // IETF protocol assignments
    (v4net(192, 88, 99, 0, 24), AddrClass::Reserved), // deprecated 6to4 relay anycast
    (v4net(198, 18, 0, 0, 15), AddrClass::Benchmarking),
    (v4net(240, 0, 0, 0, 4), AddrClass::Reserved),
];

/// IPv4-compatible ::a.b.c.d (deprecated; :: and ::1 are classified before).
const V6_V4_COMPATIBLE: Ipv6Net = v6net([0; 8], 96);
/// SIIT IPv4-translated ::ffff:0:a.b.c.d.
const V6_V4_TRANSLATED: Ipv6Net = v6net([0, 0, 0, 0, 0xffff, 0, 0, 0], 96);
/// NAT64 well-known prefix 64:ff9b::/96.
const V6_NAT64: Ipv6Net = v6net([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96);
/// NAT64 local-use prefix 64:ff9b:1::/48 (RFC 8215): not global. An operator may cut it
/// into a /48, /56, /64 or /96 NAT64 prefix, and RFC 6052 places the IPv4 address
/// differently in each (see [`nat64_local_class`]).
const V6_NAT64_LOCAL: Ipv6Net = v6net([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48);
/// 6to4 2002::/16 (the IPv4 address is in bits 16..48).
const V6_6TO4: Ipv6Net = v6net([0x2002, 0, 0, 0, 0, 0, 0, 0], 16);
const V6_SITE_LOCAL: Ipv6Net = v6net([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10);
const V6_DOCUMENTATION: [Ipv6Net; 2] = [
    v6net([0x2001, 0x0db8, 0, 0, 0, 0, 0, 0], 32),
    v6net([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20),
];
const V6_BENCHMARKING: Ipv6Net = v6net([0x2001, 0x0002, 0, 0, 0, 0, 0, 0], 48);
/// IETF protocol assignments (Teredo 2001::/32, ORCHID, AMT, anycast services, ...).
const V6_IETF_PROTOCOL: Ipv6Net = v6net([0x2001, 0, 0, 0, 0, 0, 0, 0], 23);
/// The only IPv6 space allocated for global unicast.
const V6_GLOBAL_UNICAST: Ipv6Net = v6net([0x2000, 0, 0, 0, 0, 0, 0, 0], 3);

/// Classifies an address. `None` means a public unicast address.
///
/// IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), SIIT-translated
/// (`::ffff:0:a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) IPv6 forms are
/// classified as the IPv4 address they embed (so they are public when it is); the
/// local-use NAT64 prefix `64:ff9b:1::/48` is never public ([`nat64_local_class`]).
pub fn classify_ip(ip: IpAddr) -> Option<AddrClass> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<AddrClass> {
    if METADATA_V4.contains(&ip) {
        return Some(AddrClass::Metadata);
    }
    let class = if ip.is_unspecified() {
        AddrClass::Unspecified
    } else if ip.is_broadcast() {
        AddrClass::Broadcast
    } else if ip.is_loopback() {
        AddrClass::Loopback
    } else if ip.is_private() {
        AddrClass::Private
    } else if ip.is_link_local() {
        AddrClass::LinkLocal
    } else if ip.is_documentation() {
        AddrClass::Documentation
    } else if ip.is_multicast() {
        AddrClass::Multicast
    } else {
        return V4_RANGES
            .iter()
            .find(|(net, _)| net.contains(&ip))
            .map(|&(_, class)| class);
    };
    Some(class)
}

/// The IPv4 address an IPv6 address embeds, for the forms that carry one.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let o = ip.octets();
    let low = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    if V6_V4_COMPATIBLE.contains(&ip) || V6_V4_TRANSLATED.contains(&ip) || V6_NAT64.contains(&ip) {
        Some(low)
    } else if V6_6TO4.contains(&ip) {
        Some(Ipv4Addr::new(o[2], o[3], o[4], o[5]))
    } else {
        None
    }
}

/// The class of an address in the local-use NAT64 prefix 64:ff9b:1::/48, which is never
/// public. Where its IPv4 address sits depends on the prefix length the operator chose
/// (RFC 6052 §2.2: octets 6-7 and 9-10 for a /48, 7 and 9-11 for a /56, 9-12 for a /64,
/// 12-15 for a /96; octet 8 is always skipped), and vetch cannot know it. So: cloud
/// metadata when any layout embeds a metadata address (that stays refused under
/// `allow_private`); else the class of the /96 layout's address when that is refused;
/// else `Reserved`, like the rest of the IPv6 space outside 2000::/3.
fn nat64_local_class(ip: Ipv6Addr) -> AddrClass {
    let o = ip.octets();
    let layouts = [
        [o[12], o[13], o[14], o[15]],
        [o[9], o[10], o[11], o[12]],
        [o[7], o[9], o[10], o[11]],
        [o[6], o[7], o[9], o[10]],
    ]
    .map(Ipv4Addr::from);
    if layouts.iter().any(|v4| METADATA_V4.contains(v4)) {
        return AddrClass::Metadata;
    }
    classify_v4(layouts[0]).unwrap_or(AddrClass::Reserved)
}

fn classify_v6(ip: Ipv6Addr) -> Option<AddrClass> {
    if ip.is_unspecified() {
        return Some(AddrClass::Unspecified);
    }
    if ip.is_loopback() {
        return Some(AddrClass::Loopback);
    }
    if V6_NAT64_LOCAL.contains(&ip) {
        return Some(nat64_local_class(ip));
    }
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let class = if METADATA_V6.contains(&ip) {
        AddrClass::Metadata
    } else if ip.is_multicast() {
        AddrClass::Multicast
    } else if ip.is_unicast_link_local() {
        AddrClass::LinkLocal
    } else if V6_SITE_LOCAL.contains(&ip) {
        AddrClass::SiteLocal
    } else if ip.is_unique_local() {
        AddrClass::UniqueLocal
    } else if V6_DOCUMENTATION.iter().any(|net| net.contains(&ip)) {
        AddrClass::Documentation
    } else if V6_BENCHMARKING.contains(&ip) {
        AddrClass::Benchmarking
    } else if V6_IETF_PROTOCOL.contains(&ip) || !V6_GLOBAL_UNICAST.contains(&ip) {
        AddrClass::Reserved
    } else {
        return None;
    };
    Some(class)
}

/// Host names of cloud metadata services. Each also covers its subdomains.
const METADATA_NAMES: [&str; 7] = [
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.tencentyun.com",
    "rancher-metadata",
];

/// Names that mean this machine. Each also covers its subdomains (RFC 6761 for `localhost`).
const LOCAL_NAMES: [&str; 6] = [
    "localhost",
    "localhost.localdomain",
    "localhost6",
    "localhost6.localdomain6",
    "ip6-localhost",
    "ip6-loopback",
];

/// True when `host` (any case, trailing dot ignored) is a cloud metadata name.
pub fn is_metadata_name(host: &str) -> bool {
    let name = normalize_name(host);
    METADATA_NAMES.iter().any(|m| name_matches(&name, m))
}

/// Special-use and private-use domains whose names are local by definition: mDNS
/// (`.local`, RFC 6762), `.internal` (reserved for private use), home networks
/// (`.home.arpa`, RFC 8375), Kubernetes services (`.svc`, `.cluster.local`), and public
/// names that always resolve to loopback (`localtest.me`, `lvh.me`, `vcap.me`).
const LOCAL_DOMAINS: [&str; 8] = [
    "local",
    "internal",
    "home.arpa",
    "svc",
    "cluster.local",
    "localtest.me",
    "lvh.me",
    "vcap.me",
];

/// Public wildcard-DNS services whose names resolve to the IP address they spell.
const WILDCARD_DNS: [&str; 4] = ["nip.io", "sslip.io", "xip.io", "traefik.me"];

/// True when `host` (any case, trailing dot ignored) is `localhost`, a subdomain of it,
/// another conventional name for this machine, or a name under a domain that is local by
/// definition (see `LOCAL_DOMAINS`). Decided without DNS.
pub fn is_local_name(host: &str) -> bool {
    let name = normalize_name(host);
    LOCAL_NAMES
        .iter()
        .chain(LOCAL_DOMAINS.iter())
        .any(|m| name_matches(&name, m))
}

/// The IP address a wildcard-DNS name spells (`127.0.0.1.nip.io`, `x.10.0.0.1.sslip.io`,
/// `app-10-0-0-1.nip.io`, `7f000001.nip.io`, `--1.sslip.io` for `::1`), decided without
/// DNS; `None` for other names.
pub fn wildcard_dns_ip(host: &str) -> Option<IpAddr> {
    let name = normalize_name(host);
    let rest = WILDCARD_DNS.iter().find_map(|d| {
        name.strip_suffix(d)
            .and_then(|r| r.strip_suffix('.'))
            .filter(|r| !r.is_empty())
    })?;
    let labels: Vec<&str> = rest.split('.').collect();
    // Dotted: the last four labels are the address.
    if labels.len() >= 4 {
        let dotted = labels[labels.len() - 4..].join(".");
        if let Ok(v4) = dotted.parse::<Ipv4Addr>() {
            return Some(IpAddr::V4(v4));
        }
    }
    let last = labels.last()?;
    // IPv6 with dashes for colons (sslip.io): `--1`, `fe80--1`, `2a01-4f8--2`.
    if last.contains("--") {
        if let Ok(ip) = last.replace('-', ":").parse::<Ipv6Addr>() {
            return Some(IpAddr::V6(ip));
        }
        // A prefix label before the address (`app-fe80--1`): try from each dash.
        for (i, _) in last.match_indices('-') {
            if let Ok(ip) = last[i + 1..].replace('-', ":").parse::<Ipv6Addr>() {
                return Some(IpAddr::V6(ip));
            }
        }
    }
    let parts: Vec<&str> = last.split('-').collect();
    // Dashed: `10-0-0-1` or `app-10-0-0-1`.
    if parts.len() >= 4 {
        let dashed = parts[parts.len() - 4..].join(".");
        if let Ok(v4) = dashed.parse::<Ipv4Addr>() {
            return Some(IpAddr::V4(v4));
        }
    }
    // Hex: `7f000001` or `app-7f000001`.
    let hex = parts.last()?;
    if hex.len() == 8 {
        if let Ok(n) = u32::from_str_radix(hex, 16) {
            return Some(IpAddr::V4(Ipv4Addr::from(n)));
        }
    }
    None
}

/// The `[network]` rules that decide where `vetch` may connect.
#[derive(Debug, Clone, Default)]
pub struct NetworkPolicy {
    /// Lift the rule against non-public addresses and local names, except cloud metadata.
    pub allow_private: bool,
    /// Exact host names or IP literals (case-insensitive, trailing dot ignored, IPv6 with or
    /// without brackets) exempt from every address and name rule, metadata included.
    pub allow_private_hosts: Vec<String>,
    /// When non-empty, only these hosts and their subdomains (and IP literals listed here).
    pub allowed_domains: Vec<String>,
    /// These hosts and their subdomains are refused; beats `allowed_domains`.
    pub blocked_domains: Vec<String>,
}

/// A host as the policy compares it: an address, or a lowercase name without trailing dots.
#[derive(Debug, Clone, PartialEq, Eq)]
enum HostKey {
    Ip(IpAddr),
    Name(String),
}

impl HostKey {
    fn from_url_host(host: Host<&str>) -> HostKey {
        match host {
            Host::Ipv4(a) => HostKey::Ip(IpAddr::V4(a)),
            Host::Ipv6(a) => HostKey::Ip(IpAddr::V6(a)),
            Host::Domain(d) => HostKey::from_name(d),
        }
    }

    /// A name as given (by a URL or the resolver); an IP literal in it becomes an address.
    fn from_name(raw: &str) -> HostKey {
        let name = normalize_name(raw);
        let bare = name
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .unwrap_or(&name);
        match bare.parse::<IpAddr>() {
            Ok(ip) => HostKey::Ip(ip),
            Err(_) => HostKey::Name(name),
        }
    }

    /// A configured list entry: parsed like a URL host (so IPv4 spellings and IDNA names
    /// compare as the URL parser normalises them), falling back to the raw lowercase text.
    fn from_entry(raw: &str) -> Option<HostKey> {
        let trimmed = raw.trim().trim_end_matches('.');
        if trimmed.is_empty() {
            return None;
        }
        let key = match Host::parse(trimmed) {
            Ok(Host::Ipv4(a)) => HostKey::Ip(IpAddr::V4(a)),
            Ok(Host::Ipv6(a)) => HostKey::Ip(IpAddr::V6(a)),
            Ok(Host::Domain(d)) => HostKey::from_name(&d),
            Err(_) => HostKey::from_name(trimmed),
        };
        Some(key)
    }

    /// Same address (IPv4-mapped IPv6 equals its IPv4) or same name.
    fn same_host(&self, other: &HostKey) -> bool {
        match (self, other) {
            (HostKey::Ip(a), HostKey::Ip(b)) => a.to_canonical() == b.to_canonical(),
            (HostKey::Name(a), HostKey::Name(b)) => a == b,
            _ => false,
        }
    }

    /// Domain-list match: an address only equals itself; a name matches the entry or any
    /// subdomain of it, never a partial label.
    fn in_domain(&self, entry: &HostKey) -> bool {
        match (self, entry) {
            (HostKey::Name(host), HostKey::Name(domain)) => name_matches(host, domain),
            _ => self.same_host(entry),
        }
    }

    fn display(&self) -> String {
        match self {
            HostKey::Ip(ip) => ip.to_string(),
            HostKey::Name(name) => name.clone(),
        }
    }
}

fn normalize_name(raw: &str) -> String {
    raw.trim().trim_end_matches('.').to_lowercase()
}

/// `name` equals `domain` or ends with `.domain`; both already normalised.
fn name_matches(name: &str, domain: &str) -> bool {
    if domain.is_empty() {
        return false;
    }
    match name.strip_suffix(domain) {
        Some("") => true,
        Some(rest) => rest.ends_with('.'),
        None => false,
    }
}

/// A domain-list entry; a leading `*.` or `.` is accepted and means the same as none.
fn domain_entry(raw: &str) -> Option<HostKey> {
    let t = raw.trim();
    let t = t
        .strip_prefix("*.")
        .or_else(|| t.strip_prefix('.'))
        .unwrap_or(t);
    HostKey::from_entry(t)
}

impl NetworkPolicy {
    /// Pre-flight check of a URL (the requested URL, or a redirect hop): the scheme must be
    /// http or https; an IP-literal host must not be in a refused class; a name must not be
    /// `localhost`-like or a cloud metadata name; and, when `apply_domain_lists`, the host
    /// must pass `blocked_domains` and `allowed_domains`. `apply_domain_lists` is false for
    /// the operator-configured endpoints of template providers.
    ///
    /// Names are not resolved here: a name that resolves to a refused address is caught by
    /// [`NetworkPolicy::check_resolved`].
    pub fn check_url(&self, url: &Url, apply_domain_lists: bool) -> Result<(), Refusal> {
        let scheme = url.scheme();
        if scheme != "http" && scheme != "https" {
            return Err(Refusal::Scheme {
                scheme: scheme.to_string(),
            });
        }
        let key = match url.host() {
            Some(host) => HostKey::from_url_host(host),
            None => return Err(Refusal::MissingHost),
        };
        self.check_host(&key)?;
        if apply_domain_lists {
            self.check_domain_lists(&key)?;
        }
        Ok(())
    }

    /// Checks one address that the host name `host` resolved to; the DNS resolver calls it
    /// for every address of every connection (redirect hops included), so DNS rebinding
    /// cannot slip a refused address in after [`NetworkPolicy::check_url`]. The name rules
    /// of `check_url` are applied to `host` again; domain lists are not (they are
    /// `check_url`'s job). An address is exempt when `host` or the address itself is in
    /// `allow_private_hosts`.
    pub fn check_resolved(&self, host: &str, ip: IpAddr) -> Result<(), Refusal> {
        let key = HostKey::from_name(host);
        self.check_host(&key)?;
        let Some(class) = classify_ip(ip) else {
            return Ok(());
        };
        let exempt = self.is_exempt(&key) || self.is_exempt(&HostKey::Ip(ip));
        if self.lifts(class, exempt) {
            Ok(())
        } else {
            Err(Refusal::Resolved {
                host: key.display(),
                ip,
                class,
            })
        }
    }

    /// True when the host is named in `allow_private_hosts`.
    fn is_exempt(&self, key: &HostKey) -> bool {
        self.allow_private_hosts
            .iter()
            .filter_map(|entry| HostKey::from_entry(entry))
            .any(|entry| key.same_host(&entry))
    }

    /// Whether a refused class is lifted: by an exemption always, by `allow_private` for
    /// every class but cloud metadata.
    fn lifts(&self, class: AddrClass, exempt: bool) -> bool {
        exempt || (self.allow_private && class != AddrClass::Metadata)
    }

    /// The address and name rules for a host (no domain lists).
    fn check_host(&self, key: &HostKey) -> Result<(), Refusal> {
        let exempt = self.is_exempt(key);
        match key {
            HostKey::Ip(ip) => match classify_ip(*ip) {
                Some(class) if !self.lifts(class, exempt) => {
                    Err(Refusal::Address { ip: *ip, class })
                }
                _ => Ok(()),
            },
            HostKey::Name(name) => {
                if is_metadata_name(name) && !self.lifts(AddrClass::Metadata, exempt) {
                    Err(Refusal::MetadataName { host: name.clone() })
                } else if is_local_name(name) && !self.lifts(AddrClass::Loopback, exempt) {
                    Err(Refusal::LocalName { host: name.clone() })
                } else if let Some((ip, class)) = wildcard_dns_ip(name)
                    .and_then(|ip| classify_ip(ip).map(|class| (ip, class)))
                    .filter(|&(_, class)| !self.lifts(class, exempt))
                {
                    Err(Refusal::Spelled {
                        host: name.clone(),
                        ip,
                        class,
                    })
                } else {
                    Ok(())
                }
            }
        }
    }

    fn check_domain_lists(&self, key: &HostKey) -> Result<(), Refusal> {
        let listed = |list: &[String]| {
            list.iter()
                .filter_map(|entry| domain_entry(entry))
                .any(|entry| key.in_domain(&entry))
        };
        if listed(&self.blocked_domains) {
            return Err(Refusal::Blocked {
                host: key.display(),
            });
        }
        if !self.allowed_domains.is_empty() && !listed(&self.allowed_domains) {
            return Err(Refusal::NotAllowed {
                host: key.display(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AddrClass::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Want {
        Addr(AddrClass),
        MetaName,
        LocalName,
    }

    fn kind(r: &Refusal) -> Option<Want> {
        match r {
            Refusal::Address { class, .. } | Refusal::Spelled { class, .. } => {
                Some(Want::Addr(*class))
            }
            Refusal::MetadataName { .. } => Some(Want::MetaName),
            Refusal::LocalName { .. } => Some(Want::LocalName),
            _ => None,
        }
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap_or_else(|e| panic!("{s} does not parse: {e}"))
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    /// SSRF spellings refused by the default policy, with the class each must report.
    const REFUSED: &[(&str, Want)] = &[
        // loopback in every IPv4 spelling the URL parser accepts
        ("http://127.0.0.1/", Want::Addr(Loopback)),
        ("http://2130706433/", Want::Addr(Loopback)),
        ("http://0177.0.0.1/", Want::Addr(Loopback)),
        ("http://0x7f.1/", Want::Addr(Loopback)),
        ("http://127.1/", Want::Addr(Loopback)),
        ("http://0x7f000001/", Want::Addr(Loopback)),
        ("http://0177.1/", Want::Addr(Loopback)),
        ("http://127.000.000.001/", Want::Addr(Loopback)),
        ("http://127.0.0.1./", Want::Addr(Loopback)),
        ("http://%31%32%37.0.0.1/", Want::Addr(Loopback)),
        (
            "http://\u{ff11}\u{ff12}\u{ff17}.0.0.1/",
            Want::Addr(Loopback),
        ),
        ("http://127.0.0.1:8080/admin", Want::Addr(Loopback)),
        ("http://user:pass@127.0.0.1/", Want::Addr(Loopback)),
        ("http://example.com@127.0.0.1/", Want::Addr(Loopback)),
        ("https://127.255.255.254/", Want::Addr(Loopback)),
        // IPv6 loopback and its IPv4 embeddings
        ("http://[::1]/", Want::Addr(Loopback)),
        ("http://[0:0:0:0:0:0:0:1]/", Want::Addr(Loopback)),
        ("http://[::ffff:127.0.0.1]/", Want::Addr(Loopback)),
        ("http://[::ffff:7f00:1]/", Want::Addr(Loopback)),
        ("http://[0:0:0:0:0:ffff:127.0.0.1]/", Want::Addr(Loopback)),
        ("http://[::127.0.0.1]/", Want::Addr(Loopback)),
        ("http://[::ffff:0:7f00:1]/", Want::Addr(Loopback)),
        ("http://[64:ff9b::7f00:1]/", Want::Addr(Loopback)),
        ("http://[2002:7f00:1::]/", Want::Addr(Loopback)),
        // unspecified
        ("http://0/", Want::Addr(Unspecified)),
        ("http://0.0.0.0/", Want::Addr(Unspecified)),
        ("http://0x0/", Want::Addr(Unspecified)),
        ("http://[::]/", Want::Addr(Unspecified)),
        ("http://[::ffff:0.0.0.0]/", Want::Addr(Unspecified)),
        // cloud metadata
        (
            "http://169.254.169.254/latest/meta-data/",
            Want::Addr(Metadata),
        ),
        ("http://169.254.169.254./", Want::Addr(Metadata)),
        ("http://0xa9fea9fe/", Want::Addr(Metadata)),
        ("http://025177524776/", Want::Addr(Metadata)),
        ("http://2852039166/", Want::Addr(Metadata)),
        ("http://0xa9.0xfe.0xa9.0xfe/", Want::Addr(Metadata)),
        ("http://169.254.43518/", Want::Addr(Metadata)),
        ("http://[::ffff:169.254.169.254]/", Want::Addr(Metadata)),
        ("http://[::ffff:a9fe:a9fe]/", Want::Addr(Metadata)),
        ("http://[64:ff9b::a9fe:a9fe]/", Want::Addr(Metadata)),
        ("http://[2002:a9fe:a9fe::1]/", Want::Addr(Metadata)),
        ("http://[fd00:ec2::254]/", Want::Addr(Metadata)),
        ("http://[fd00:ec2::23]/", Want::Addr(Metadata)),
        ("http://169.254.170.2/v2/credentials", Want::Addr(Metadata)),
        (
            "http://100.100.100.200/latest/meta-data/",
            Want::Addr(Metadata),
        ),
        ("http://192.0.0.192/latest/", Want::Addr(Metadata)),
        ("http://metadata.google.internal/", Want::MetaName),
        ("http://METADATA.GOOGLE.INTERNAL./", Want::MetaName),
        (
            "http://metadata.google.internal./computeMetadata/v1/",
            Want::MetaName,
        ),
        ("https://metadata.goog/", Want::MetaName),
        ("http://metadata/", Want::MetaName),
        ("http://instance-data/latest/", Want::MetaName),
        ("http://instance-data.ec2.internal/", Want::MetaName),
        // local names
        ("http://localhost/", Want::LocalName),
        ("http://LOCALHOST./", Want::LocalName),
        ("http://localhost:3000/", Want::LocalName),
        ("http://foo.localhost/", Want::LocalName),
        ("http://a.b.localhost./", Want::LocalName),
        ("http://localhost.localdomain/", Want::LocalName),
        ("http://ip6-localhost/", Want::LocalName),
        (
            "http://\u{ff4c}\u{ff4f}\u{ff43}\u{ff41}\u{ff4c}\u{ff48}\u{ff4f}\u{ff53}\u{ff54}/",
            Want::LocalName,
        ),
        // private, CGNAT, link-local, ULA, site-local
        ("http://10.0.0.1/", Want::Addr(Private)),
        ("http://012.0.0.1/", Want::Addr(Private)),
        ("http://172.16.0.1/", Want::Addr(Private)),
        ("http://172.31.255.255/", Want::Addr(Private)),
        ("http://192.168.1.1/", Want::Addr(Private)),
        ("http://3232235777/", Want::Addr(Private)),
        ("http://[::ffff:10.0.0.1]/", Want::Addr(Private)),
        ("http://[64:ff9b::192.168.0.1]/", Want::Addr(Private)),
        ("http://100.64.0.1/", Want::Addr(SharedCgnat)),
        ("http://100.127.255.254/", Want::Addr(SharedCgnat)),
        ("http://[::ffff:100.64.0.1]/", Want::Addr(SharedCgnat)),
        ("http://169.254.1.1/", Want::Addr(LinkLocal)),
        ("http://[fe80::1]/", Want::Addr(LinkLocal)),
        ("http://[fe80::a9fe:a9fe]/", Want::Addr(LinkLocal)),
        ("http://[fc00::1]/", Want::Addr(UniqueLocal)),
        ("http://[fd12:3456:789a::1]/", Want::Addr(UniqueLocal)),
        ("http://[fec0::1]/", Want::Addr(SiteLocal)),
        // multicast, broadcast
        ("http://224.0.0.1/", Want::Addr(Multicast)),
        ("http://239.255.255.250/", Want::Addr(Multicast)),
        ("http://[ff02::1]/", Want::Addr(Multicast)),
        ("http://255.255.255.255/", Want::Addr(Broadcast)),
        ("http://4294967295/", Want::Addr(Broadcast)),
        // documentation, benchmarking, reserved
        ("http://192.0.2.1/", Want::Addr(Documentation)),
        ("http://198.51.100.7/", Want::Addr(Documentation)),
        ("http://203.0.113.9/", Want::Addr(Documentation)),
        ("http://[2001:db8::1]/", Want::Addr(Documentation)),
        ("http://[3fff::1]/", Want::Addr(Documentation)),
        ("http://198.18.0.1/", Want::Addr(Benchmarking)),
        ("http://198.19.255.255/", Want::Addr(Benchmarking)),
        ("http://[2001:2::1]/", Want::Addr(Benchmarking)),
        ("http://240.0.0.1/", Want::Addr(Reserved)),
        ("http://0.1.2.3/", Want::Addr(Reserved)),
        ("http://192.0.0.1/", Want::Addr(Reserved)),
        ("http://192.88.99.1/", Want::Addr(Reserved)),
        ("http://[100::1]/", Want::Addr(Reserved)),
        ("http://[64:ff9b:1::1]/", Want::Addr(Reserved)),
        ("http://[2001::1]/", Want::Addr(Reserved)),
        ("http://[5f00::1]/", Want::Addr(Reserved)),
    ];

    #[test]
    fn refuses_ssrf_spellings_by_default() {
        assert!(REFUSED.len() >= 45, "table has {} rows", REFUSED.len());
        let policy = NetworkPolicy::default();
        let mut failures = Vec::new();
        for &(spelling, want) in REFUSED {
            let got = policy.check_url(&url(spelling), true);
            match got {
                Err(ref r) if kind(r) == Some(want) => {}
                other => failures.push(format!("{spelling}: want {want:?}, got {other:?}")),
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// Public hosts, checked without connecting (names are judged only by their spelling).
    const PUBLIC: &[&str] = &[
        "http://93.184.215.14/",
        "http://[2606:4700::1111]/",
        "https://example.com/",
        "http://8.8.8.8/",
        "http://1.1.1.1/",
        "https://[2001:4860:4860::8888]/",
        "http://[2620:fe::fe]/",
        "http://[::ffff:8.8.8.8]/",
        "http://[64:ff9b::808:808]/",
        "http://[2002:808:808::1]/",
        "http://100.63.255.255/",
        "http://100.128.0.1/",
        "http://172.15.255.255/",
        "http://172.32.0.1/",
        "http://192.169.0.1/",
        "http://169.255.0.1/",
        "http://198.20.0.1/",
        "http://223.255.255.255/",
        "http://11.0.0.1/",
        "https://localhost.example.com/",
        "https://mylocalhost/",
        "https://metadata.example.com/",
        "https://notmetadata.google.internal.example/",
        // a wildcard-DNS name that spells a public address
        "http://8.8.8.8.nip.io/",
    ];

    #[test]
    fn allows_public_hosts() {
        assert!(PUBLIC.len() >= 12);
        let policy = NetworkPolicy::default();
        for spelling in PUBLIC {
            assert_eq!(policy.check_url(&url(spelling), true), Ok(()), "{spelling}");
        }
    }

    #[test]
    fn classify_ip_directly() {
        let cases: &[(&str, Option<AddrClass>)] = &[
            ("127.0.0.1", Some(Loopback)),
            ("::1", Some(Loopback)),
            ("169.254.169.254", Some(Metadata)),
            ("169.254.170.2", Some(Metadata)),
            ("169.254.169.253", Some(LinkLocal)),
            ("fd00:ec2::254", Some(Metadata)),
            ("fd00:ec2::253", Some(UniqueLocal)),
            ("0.0.0.0", Some(Unspecified)),
            ("0.255.255.255", Some(Reserved)),
            ("255.255.255.254", Some(Reserved)),
            ("::2", Some(Reserved)),
            ("::8.8.8.8", None),
            ("::ffff:1.1.1.1", None),
            ("2002:101:101::", None),
            ("2001:4860::1", None),
            ("2a00:1450:4001::200e", None),
            ("8.8.4.4", None),
            ("100.64.0.0", Some(SharedCgnat)),
            ("100.63.255.255", None),
        ];
        for &(text, want) in cases {
            assert_eq!(classify_ip(ip(text)), want, "{text}");
        }
    }

    #[test]
    fn embedded_forms_classify_as_their_ipv4() {
        let v4s = [
            "127.0.0.1",
            "10.1.2.3",
            "172.20.0.1",
            "192.168.0.1",
            "169.254.169.254",
            "169.254.3.4",
            "100.64.1.1",
            "224.0.0.251",
            "255.255.255.255",
            "192.0.2.5",
            "198.18.3.3",
            "240.1.1.1",
            "8.8.8.8",
        ];
        for text in v4s {
            let Ok(v4) = text.parse::<Ipv4Addr>() else {
                panic!("{text}")
            };
            let want = classify_ip(IpAddr::V4(v4));
            let o = v4.octets();
            let hi = u16::from_be_bytes([o[0], o[1]]);
            let lo = u16::from_be_bytes([o[2], o[3]]);
            let forms = [
                v4.to_ipv6_mapped(),
                Ipv6Addr::new(0, 0, 0, 0, 0, 0, hi, lo),
                Ipv6Addr::new(0, 0, 0, 0, 0xffff, 0, hi, lo),
                Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, hi, lo),
                Ipv6Addr::new(0x2002, hi, lo, 0, 0, 0, 0, 1),
            ];
            for form in forms {
                assert_eq!(classify_ip(IpAddr::V6(form)), want, "{form} for {text}");
            }
        }
    }

    /// The local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215) is not global space: refused
    /// whatever it embeds, and as cloud metadata (kept under allow_private) when any RFC
    /// 6052 layout an operator may cut it into (/48, /56, /64, /96) embeds a metadata
    /// address. Before, only the last 32 bits were read, so the /48 and /64 layouts of
    /// 127.0.0.1 or 169.254.169.254, with a public address in the last 32 bits, passed.
    #[test]
    fn nat64_local_use_prefix_is_refused_in_every_layout() {
        let open = NetworkPolicy {
            allow_private: true,
            ..Default::default()
        };
        let rows: &[(&str, AddrClass, Option<AddrClass>)] = &[
            // /48 layout of 127.0.0.1 (octets 6-7 and 9-10), 8.8.8.8 in the last 32 bits
            ("64:ff9b:1:7f00:0:100:808:808", Reserved, None),
            // /64 layout of 127.0.0.1 (octets 9-12)
            ("64:ff9b:1:0:7f:0:100:808", Reserved, None),
            // a public address in the /96 layout: still local-use space
            ("64:ff9b:1::808:808", Reserved, None),
            // /48, /56 and /64 layouts of 169.254.169.254: metadata, even under allow_private
            ("64:ff9b:1:a9fe:a9:fe00:808:808", Metadata, Some(Metadata)),
            ("64:ff9b:1:a9:fe:a9fe:808:808", Metadata, Some(Metadata)),
            ("64:ff9b:1:0:a9:fea9:fe08:808", Metadata, Some(Metadata)),
            // the /96 layout keeps the class of what it embeds
            ("64:ff9b:1::7f00:1", Loopback, None),
            ("64:ff9b:1::a9fe:a9fe", Metadata, Some(Metadata)),
        ];
        for &(text, by_default, under_allow_private) in rows {
            assert_eq!(classify_ip(ip(text)), Some(by_default), "{text}");
            let u = url(&format!("http://[{text}]/"));
            assert_eq!(
                NetworkPolicy::default()
                    .check_url(&u, true)
                    .err()
                    .and_then(|r| r.class()),
                Some(by_default),
                "{text}"
            );
            assert_eq!(
                open.check_url(&u, true).err().and_then(|r| r.class()),
                under_allow_private,
                "{text} under allow_private"
            );
        }
        // The well-known prefix is used only as a /96: its last 32 bits decide.
        assert_eq!(classify_ip(ip("64:ff9b::808:808")), None);
        assert_eq!(classify_ip(ip("64:ff9b::a00:1")), Some(Private));
        // Outside the /96, the rest of 64:ff9b::/32 is not global either.
        assert_eq!(
            classify_ip(ip("64:ff9b:0:7f00:0:100:808:808")),
            Some(Reserved)
        );
    }

    #[test]
    fn other_schemes_are_refused() {
        let policy = NetworkPolicy {
            allow_private: true,
            ..Default::default()
        };
        for (spelling, scheme) in [
            ("file:///etc/passwd", "file"),
            ("ftp://example.com/", "ftp"),
            ("gopher://127.0.0.1:70/", "gopher"),
            ("ws://example.com/", "ws"),
            ("data:text/plain,hi", "data"),
            ("javascript:alert(1)", "javascript"),
        ] {
            assert_eq!(
                policy.check_url(&url(spelling), true),
                Err(Refusal::Scheme {
                    scheme: scheme.to_string()
                }),
                "{spelling}"
            );
        }
    }

    /// Names refused before any attempt, without DNS: (URL, refused by default, refused
    /// under allow_private).
    const LOCAL_BY_DEFINITION: &[(&str, Option<Want>, Option<Want>)] = &[
        ("http://printer.local/", Some(Want::LocalName), None),
        ("http://a.b.cluster.local/", Some(Want::LocalName), None),
        ("http://api.default.svc/", Some(Want::LocalName), None),
        ("http://db.internal/", Some(Want::LocalName), None),
        ("http://router.home.arpa./", Some(Want::LocalName), None),
        ("http://foo.localhost/", Some(Want::LocalName), None),
        ("http://localtest.me/", Some(Want::LocalName), None),
        ("http://x.lvh.me/", Some(Want::LocalName), None),
        ("http://127.0.0.1.nip.io/", Some(Want::Addr(Loopback)), None),
        (
            "http://x.127.0.0.1.nip.io/",
            Some(Want::Addr(Loopback)),
            None,
        ),
        ("http://10-0-0-1.sslip.io/", Some(Want::Addr(Private)), None),
        (
            "http://app-192-168-1-1.nip.io/",
            Some(Want::Addr(Private)),
            None,
        ),
        ("http://7f000001.nip.io/", Some(Want::Addr(Loopback)), None),
        (
            "http://app-7f000001.sslip.io/",
            Some(Want::Addr(Loopback)),
            None,
        ),
        ("http://--1.sslip.io/", Some(Want::Addr(Loopback)), None),
        (
            "http://10.0.0.1.traefik.me/",
            Some(Want::Addr(Private)),
            None,
        ),
        // Metadata stays refused under allow_private, whatever the spelling.
        (
            "http://169.254.169.254.nip.io/",
            Some(Want::Addr(Metadata)),
            Some(Want::Addr(Metadata)),
        ),
        (
            "http://a9fea9fe.sslip.io/",
            Some(Want::Addr(Metadata)),
            Some(Want::Addr(Metadata)),
        ),
        (
            "http://[64:ff9b:1::a9fe:a9fe]/",
            Some(Want::Addr(Metadata)),
            Some(Want::Addr(Metadata)),
        ),
        (
            "http://[64:ff9b:1::7f00:1]/",
            Some(Want::Addr(Loopback)),
            None,
        ),
        (
            "http://metadata.google.internal/",
            Some(Want::MetaName),
            Some(Want::MetaName),
        ),
        // Public names and addresses stay allowed.
        ("http://8.8.8.8.nip.io/", None, None),
        ("http://nip.io/", None, None),
        ("http://example.com/", None, None),
        ("http://local.example.com/", None, None),
        ("http://internal.example.com/", None, None),
        ("http://my-svc.example/", None, None),
        ("http://deadbeef.example.com/", None, None),
    ];

    #[test]
    fn local_by_definition_names_are_refused_without_dns() {
        let open = NetworkPolicy {
            allow_private: true,
            ..Default::default()
        };
        for (spelling, by_default, under_allow_private) in LOCAL_BY_DEFINITION {
            let u = url(spelling);
            let got = NetworkPolicy::default().check_url(&u, true);
            assert_eq!(got.as_ref().err().and_then(kind), *by_default, "{spelling}");
            let got = open.check_url(&u, true);
            assert_eq!(
                got.as_ref().err().and_then(kind),
                *under_allow_private,
                "{spelling} under allow_private"
            );
        }
        let spelled = NetworkPolicy::default().check_url(&url("http://127.0.0.1.nip.io/"), true);
        assert_eq!(
            spelled.map_err(|r| r.to_string()),
            Err("host 127.0.0.1.nip.io names loopback address 127.0.0.1".to_string())
        );
    }

    #[test]
    fn allow_private_lifts_all_but_metadata() {
        let policy = NetworkPolicy {
            allow_private: true,
            ..Default::default()
        };
        for spelling in [
            "http://127.0.0.1:8080/",
            "http://2130706433/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://localhost/",
            "http://foo.localhost/",
            "http://10.0.0.1/",
            "http://192.168.1.1/",
            "http://100.64.0.1/",
            "http://169.254.1.1/",
            "http://[fe80::1]/",
            "http://[fc00::1]/",
            "http://0.0.0.0/",
        ] {
            assert_eq!(policy.check_url(&url(spelling), true), Ok(()), "{spelling}");
        }
        for (spelling, want) in [
            ("http://169.254.169.254/", Want::Addr(Metadata)),
            ("http://0xa9fea9fe/", Want::Addr(Metadata)),
            ("http://[::ffff:169.254.169.254]/", Want::Addr(Metadata)),
            ("http://[64:ff9b::a9fe:a9fe]/", Want::Addr(Metadata)),
            ("http://[fd00:ec2::254]/", Want::Addr(Metadata)),
            ("http://169.254.170.2/", Want::Addr(Metadata)),
            ("http://100.100.100.200/", Want::Addr(Metadata)),
            ("http://metadata.google.internal/", Want::MetaName),
            ("http://Metadata.Google.Internal./", Want::MetaName),
            ("http://metadata/", Want::MetaName),
        ] {
            let got = policy.check_url(&url(spelling), true);
            assert_eq!(got.as_ref().err().and_then(kind), Some(want), "{spelling}");
        }
        // and after resolution
        assert_eq!(
            policy.check_resolved("intranet.corp", ip("10.1.2.3")),
            Ok(())
        );
        assert_eq!(policy.check_resolved("localhost", ip("127.0.0.1")), Ok(()));
        assert_eq!(
            policy
                .check_resolved("rebind.example", ip("169.254.169.254"))
                .map_err(|r| r.class()),
            Err(Some(Metadata))
        );
    }

    #[test]
    fn allow_private_hosts_lifts_the_exact_metadata_address() {
        let policy = NetworkPolicy {
            allow_private: true,
            allow_private_hosts: strings(&["169.254.169.254"]),
            ..Default::default()
        };
        assert_eq!(
            policy.check_url(&url("http://169.254.169.254/"), true),
            Ok(())
        );
        assert_eq!(policy.check_url(&url("http://0xa9fea9fe/"), true), Ok(()));
        assert_eq!(
            policy.check_url(&url("http://[::ffff:169.254.169.254]/"), true),
            Ok(())
        );
        assert!(policy
            .check_url(&url("http://169.254.170.2/"), true)
            .is_err());
        assert!(policy
            .check_url(&url("http://[fd00:ec2::254]/"), true)
            .is_err());
        assert!(policy
            .check_url(&url("http://metadata.google.internal/"), true)
            .is_err());

        let by_name = NetworkPolicy {
            allow_private_hosts: strings(&["METADATA.google.internal."]),
            ..Default::default()
        };
        let gce = url("http://metadata.google.internal/computeMetadata/v1/");
        assert_eq!(by_name.check_url(&gce, true), Ok(()));
        assert_eq!(
            by_name.check_resolved("metadata.google.internal", ip("169.254.169.254")),
            Ok(())
        );
        assert!(by_name
            .check_url(&url("http://169.254.169.254/"), true)
            .is_err());
    }

    #[test]
    fn allow_private_hosts_exempts_one_loopback_address() {
        let policy = NetworkPolicy {
            allow_private: false,
            allow_private_hosts: strings(&["127.0.0.2"]),
            ..Default::default()
        };
        assert_eq!(
            policy.check_url(&url("http://127.0.0.2:8080/start"), true),
            Ok(())
        );
        // the redirect hop to 127.0.0.1 is still refused
        assert_eq!(
            policy.check_url(&url("http://127.0.0.1:8080/"), true),
            Err(Refusal::Address {
                ip: ip("127.0.0.1"),
                class: Loopback
            })
        );
        assert!(policy.check_url(&url("http://localhost/"), true).is_err());
        assert!(policy
            .check_url(&url("http://169.254.169.254/"), true)
            .is_err());
    }

    #[test]
    fn allow_private_hosts_entry_spellings() {
        let policy = NetworkPolicy {
            allow_private_hosts: strings(&[
                " Docs.Internal. ",
                "[::1]",
                "fe80::2",
                "0x0a.1",
                "",
                "[not an ip",
            ]),
            ..Default::default()
        };
        assert_eq!(policy.check_url(&url("http://[::1]/"), true), Ok(()));
        assert_eq!(policy.check_url(&url("http://[fe80::2]/"), true), Ok(()));
        assert_eq!(policy.check_url(&url("http://10.0.0.1/"), true), Ok(()));
        assert!(policy.check_url(&url("http://10.0.0.2/"), true).is_err());
        assert_eq!(
            policy.check_resolved("docs.internal.", ip("10.9.9.9")),
            Ok(())
        );
        assert_eq!(
            policy.check_resolved("DOCS.INTERNAL", ip("10.9.9.9")),
            Ok(())
        );
        // exact names only: a subdomain is not exempt
        assert!(policy
            .check_resolved("x.docs.internal", ip("10.9.9.9"))
            .is_err());
        // a listed address is exempt whatever name led to it
        assert_eq!(policy.check_resolved("alias.example", ip("::1")), Ok(()));
    }

    #[test]
    fn check_resolved_refuses_rebinding() {
        let policy = NetworkPolicy::default();
        assert_eq!(
            policy.check_resolved("rebind.example", ip("127.0.0.1")),
            Err(Refusal::Resolved {
                host: "rebind.example".to_string(),
                ip: ip("127.0.0.1"),
                class: Loopback
            })
        );
        assert_eq!(
            policy.check_resolved("example.com", ip("93.184.215.14")),
            Ok(())
        );
        assert_eq!(
            policy.check_resolved("example.com", ip("2606:4700::1111")),
            Ok(())
        );
        for (addr, class) in [
            ("169.254.169.254", Metadata),
            ("::ffff:127.0.0.1", Loopback),
            ("10.0.0.7", Private),
            ("fd00:ec2::254", Metadata),
            ("fe80::1", LinkLocal),
            ("0.0.0.0", Unspecified),
            ("::", Unspecified),
        ] {
            assert_eq!(
                policy
                    .check_resolved("rebind.example", ip(addr))
                    .map_err(|r| r.class()),
                Err(Some(class)),
                "{addr}"
            );
        }
        // the name rules apply to the name handed to the resolver too
        assert_eq!(
            policy.check_resolved("metadata.google.internal.", ip("8.8.8.8")),
            Err(Refusal::MetadataName {
                host: "metadata.google.internal".to_string()
            })
        );
        assert_eq!(
            policy.check_resolved("localhost", ip("8.8.8.8")),
            Err(Refusal::LocalName {
                host: "localhost".to_string()
            })
        );

        let named = NetworkPolicy {
            allow_private_hosts: strings(&["intranet.corp"]),
            ..Default::default()
        };
        assert_eq!(
            named.check_resolved("intranet.corp", ip("10.0.0.7")),
            Ok(())
        );
        assert_eq!(
            named.check_resolved("Intranet.Corp.", ip("127.0.0.1")),
            Ok(())
        );
        assert!(named.check_resolved("other.corp", ip("10.0.0.7")).is_err());
    }

    #[test]
    fn domain_lists() {
        let policy = NetworkPolicy {
            allowed_domains: strings(&["Example.COM.", "*.docs.rs", "93.184.215.14"]),
            blocked_domains: strings(&["private.example.com", ".evil.example"]),
            ..Default::default()
        };
        let check = |s: &str| policy.check_url(&url(s), true);
        assert_eq!(check("https://example.com/"), Ok(()));
        assert_eq!(check("https://www.example.com./a"), Ok(()));
        assert_eq!(check("https://a.b.example.com/"), Ok(()));
        assert_eq!(check("https://docs.rs/"), Ok(()));
        assert_eq!(check("https://serde.docs.rs/"), Ok(()));
        assert_eq!(check("http://93.184.215.14/"), Ok(()));
        assert_eq!(
            check("https://notexample.com/"),
            Err(Refusal::NotAllowed {
                host: "notexample.com".to_string()
            })
        );
        assert_eq!(
            check("https://example.com.evil.net/"),
            Err(Refusal::NotAllowed {
                host: "example.com.evil.net".to_string()
            })
        );
        assert_eq!(
            check("http://8.8.8.8/"),
            Err(Refusal::NotAllowed {
                host: "8.8.8.8".to_string()
            })
        );
        assert_eq!(
            check("http://[2606:4700::1111]/"),
            Err(Refusal::NotAllowed {
                host: "2606:4700::1111".to_string()
            })
        );
        // blocked beats allowed
        assert_eq!(
            check("https://private.example.com/"),
            Err(Refusal::Blocked {
                host: "private.example.com".to_string()
            })
        );
        assert_eq!(
            check("https://x.PRIVATE.example.com/"),
            Err(Refusal::Blocked {
                host: "x.private.example.com".to_string()
            })
        );
        assert_eq!(
            check("https://evil.example/"),
            Err(Refusal::Blocked {
                host: "evil.example".to_string()
            })
        );
        // not applied to operator-configured template endpoints
        for s in [
            "https://notexample.com/",
            "https://private.example.com/",
            "http://8.8.8.8/",
        ] {
            assert_eq!(policy.check_url(&url(s), false), Ok(()), "{s}");
        }
        // but the address rules still are
        assert!(policy.check_url(&url("http://127.0.0.1/"), false).is_err());

        let blocked_only = NetworkPolicy {
            blocked_domains: strings(&["example.com", "1.1.1.1"]),
            ..Default::default()
        };
        assert_eq!(
            blocked_only.check_url(&url("https://notexample.com/"), true),
            Ok(())
        );
        assert!(blocked_only
            .check_url(&url("https://sub.example.com/"), true)
            .is_err());
        assert!(blocked_only
            .check_url(&url("http://1.1.1.1/"), true)
            .is_err());
        assert!(blocked_only
            .check_url(&url("http://16843009/"), true)
            .is_err());
        assert_eq!(
            blocked_only.check_url(&url("http://1.1.1.2/"), true),
            Ok(())
        );
    }

    #[test]
    fn idna_domain_entries_match_punycode_hosts() {
        let policy = NetworkPolicy {
            blocked_domains: strings(&["BÜCHER.de"]),
            ..Default::default()
        };
        assert!(policy
            .check_url(&url("https://www.bücher.de/"), true)
            .is_err());
        assert!(policy
            .check_url(&url("https://xn--bcher-kva.de/"), true)
            .is_err());
        assert_eq!(policy.check_url(&url("https://buecher.de/"), true), Ok(()));
    }

    #[test]
    fn refusal_display() {
        let cases = [
            (
                Refusal::Address {
                    ip: ip("127.0.0.1"),
                    class: Loopback,
                },
                "loopback address 127.0.0.1",
            ),
            (
                Refusal::Address {
                    ip: ip("169.254.169.254"),
                    class: Metadata,
                },
                "cloud metadata address 169.254.169.254",
            ),
            (
                Refusal::Address {
                    ip: ip("::ffff:10.0.0.1"),
                    class: Private,
                },
                "private address ::ffff:10.0.0.1",
            ),
            (
                Refusal::Address {
                    ip: ip("100.64.0.1"),
                    class: SharedCgnat,
                },
                "cgnat address 100.64.0.1",
            ),
            (
                Refusal::Address {
                    ip: ip("fe80::1"),
                    class: LinkLocal,
                },
                "link-local address fe80::1",
            ),
            (
                Refusal::Resolved {
                    host: "rebind.example".into(),
                    ip: ip("127.0.0.1"),
                    class: Loopback,
                },
                "host rebind.example resolves to loopback address 127.0.0.1",
            ),
            (
                Refusal::MetadataName {
                    host: "metadata.google.internal".into(),
                },
                "cloud metadata host metadata.google.internal",
            ),
            (
                Refusal::LocalName {
                    host: "localhost".into(),
                },
                "local host name localhost",
            ),
            (
                Refusal::Blocked {
                    host: "evil.example".into(),
                },
                "host evil.example is in blocked_domains",
            ),
            (
                Refusal::NotAllowed {
                    host: "x.example".into(),
                },
                "host x.example is not in allowed_domains",
            ),
            (
                Refusal::Scheme {
                    scheme: "ftp".into(),
                },
                "scheme ftp is not http or https",
            ),
            (Refusal::MissingHost, "URL has no host"),
        ];
        for (refusal, text) in cases {
            assert_eq!(refusal.to_string(), text);
        }
        // what check_url produces for the normalised spellings
        let policy = NetworkPolicy::default();
        let shown = |s: &str| match policy.check_url(&url(s), true) {
            Err(r) => r.to_string(),
            Ok(()) => format!("{s} allowed"),
        };
        assert_eq!(shown("http://0x7f.1/"), "loopback address 127.0.0.1");
        assert_eq!(
            shown("http://METADATA.GOOGLE.INTERNAL./x?token=secret"),
            "cloud metadata host metadata.google.internal"
        );
        assert_eq!(
            shown("http://[::ffff:7f00:1]/"),
            "loopback address ::ffff:127.0.0.1"
        );
        assert_eq!(
            shown("http://u:secret@169.254.169.254/latest?k=v"),
            "cloud metadata address 169.254.169.254"
        );
    }

    #[test]
    fn name_helpers() {
        assert!(is_local_name("LocalHost."));
        assert!(is_local_name("x.localhost"));
        assert!(!is_local_name("localhost.example.com"));
        assert!(!is_local_name("notlocalhost"));
        assert!(is_metadata_name("metadata.google.internal."));
        assert!(!is_metadata_name("metadata.google.internal.example.com"));
        assert!(!is_metadata_name(""));
        assert!(!name_matches("anything", ""));
        assert!(!name_matches("", "example.com"));
    }
}
