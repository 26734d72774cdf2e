//! A request head as the checks before routing ([`super::host`]) and the warm path
//! ([`super::warm`]) read it: from hyper's `Parts`, or straight from the bytes the warm
//! connection parsed ([`super::warm_connection`]), which then builds no `HeaderMap`.

use axum::http::request::Parts;
use axum::http::{Method, Version};

pub trait Head {
    fn method(&self) -> &Method;
    fn version(&self) -> Version;
    fn path(&self) -> &str;
    fn query(&self) -> Option<&str>;
    /// The values of the header `name` (lowercase), in the order they came.
    fn values<'a>(&'a self, name: &'static str) -> impl Iterator<Item = &'a [u8]>;

    fn has(&self, name: &'static str) -> bool {
        self.values(name).next().is_some()
    }
}

impl Head for Parts {
    fn method(&self) -> &Method {
        &self.method
    }

    fn version(&self) -> Version {
        self.version
    }

    fn path(&self) -> &str {
        self.uri.path()
    }

    fn query(&self) -> Option<&str> {
        self.uri.query()
    }

    fn values<'a>(&'a self, name: &'static str) -> impl Iterator<Item = &'a [u8]> {
        self.headers
            .get_all(name)
            .into_iter()
            .map(|value| value.as_bytes())
    }
}
