//! The error a level or a move list gets when it breaks a rule of its game.

use std::fmt;

use serde::Serialize;

/// A level (or move list) that breaks a rule of its game. `rule` is a stable identifier,
/// `message` says what is wrong in words a designer understands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleError {
    pub rule: &'static str,
    pub message: String,
}

impl RuleError {
    pub fn new(rule: &'static str, message: impl Into<String>) -> Self {
        RuleError {
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (rule {})", self.message, self.rule)
    }
}

impl std::error::Error for RuleError {}
