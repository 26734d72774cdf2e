//! Who a request is (docs/security.md): player tokens, keys for people, and the dashboard
//! sessions opened with a key.
//!
//! Every credential is one token `PREFIX_ID_SECRET`: a kind prefix, a public id that finds
//! its row, and 32 random bytes. The store keeps only the SHA-256 of the whole token, and
//! a presented token's hash is compared with it in constant time. A replica remembers what
//! a token resolved to for [`CREDENTIAL_CACHE`], so revoking a key or erasing a player
//! takes effect on every replica within that time.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::service::store::{KeyRecord, NewKey, NewSession, Store, StoreError, StoredSecret};

/// How long a replica trusts what a token resolved to: the bound on how late a revoked
/// key, an ended session or an erased player is refused by another replica.
pub const CREDENTIAL_CACHE: Duration = Duration::from_secs(2);

/// Tokens a replica remembers; bounds memory under a flood of made-up tokens.
const TOKENS_REMEMBERED: u64 = 100_000;

/// Random bytes in every secret.
const SECRET_BYTES: usize = 32;

/// The kinds of credential, told apart by their prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Player,
    Key,
    Session,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Kind::Player => "lfp_",
            Kind::Key => "lfk_",
            Kind::Session => "lfs_",
        }
    }

    /// Random bytes in the public id: players are many, keys few.
    fn id_bytes(self) -> usize {
        match self {
            Kind::Player | Kind::Session => 8,
            Kind::Key => 4,
        }
    }
}

/// A new credential: the token to show once, its public id and the hash to store.
pub struct NewSecret {
    pub token: String,
    pub id: String,
    pub hash: String,
}

impl NewSecret {
    pub fn generate(kind: Kind) -> NewSecret {
        let mut rng = rand::rng();
        let mut id = vec![0u8; kind.id_bytes()];
        rng.fill_bytes(&mut id);
        let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let mut secret = [0u8; SECRET_BYTES];
        rng.fill_bytes(&mut secret);
        let token = format!("{}{id}_{}", kind.prefix(), URL_SAFE_NO_PAD.encode(secret));
        NewSecret {
            hash: sha256_hex(token.as_bytes()),
            token,
            id,
        }
    }
}

/// A token as presented: its kind, its public id and the SHA-256 of the whole.
#[derive(Clone, Debug)]
pub struct Presented {
    pub kind: Kind,
    pub id: String,
    digest: [u8; 32],
}

impl Presented {
    /// `None` for anything that is not shaped like one of our tokens.
    pub fn parse(token: &str) -> Option<Presented> {
        let kind = [Kind::Player, Kind::Key, Kind::Session]
            .into_iter()
            .find(|kind| token.starts_with(kind.prefix()))?;
        let (id, secret) = token[kind.prefix().len()..].split_once('_')?;
        let well_formed = id.len() == kind.id_bytes() * 2
            && id
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            && URL_SAFE_NO_PAD
                .decode(secret)
                .is_ok_and(|bytes| bytes.len() == SECRET_BYTES);
        well_formed.then(|| Presented {
            kind,
            id: id.to_string(),
            digest: Sha256::digest(token.as_bytes()).into(),
        })
    }

    /// Whether this token is the one whose hash was stored, in constant time.
    pub fn matches(&self, stored_hash: &str) -> bool {
        hex(&self.digest)
            .as_bytes()
            .ct_eq(stored_hash.as_bytes())
            .into()
    }
}

/// The hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a person's key may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Designer,
    Admin,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Designer => "designer",
            Role::Admin => "admin",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        match text {
            "designer" => Some(Role::Designer),
            "admin" => Some(Role::Admin),
            _ => None,
        }
    }
}

/// Who a valid credential names.
#[derive(Clone, Debug)]
pub enum Principal {
    Player {
        id: String,
    },
    /// A key, presented itself or through a dashboard session.
    Person(Person),
}

#[derive(Clone, Debug)]
pub struct Person {
    pub key_id: String,
    pub name: String,
    pub role: Role,
    /// When this credential stops working (Unix seconds): the key's expiry, or the
    /// session's end, whichever comes first.
    pub ends_at: Option<i64>,
    pub via_session: bool,
}

pub fn now() -> i64 {
    jiff::Timestamp::now().as_second()
}

/// Resolves tokens against the store, remembering each answer for [`CREDENTIAL_CACHE`].
pub struct Authenticator {
    store: Arc<dyn Store>,
    /// By the SHA-256 of the presented token; `None`: the token is not valid.
    cache: moka::future::Cache<[u8; 32], Option<Principal>>,
}

impl Authenticator {
    pub fn new(store: Arc<dyn Store>) -> Arc<Authenticator> {
        Arc::new(Authenticator {
            store,
            cache: moka::future::Cache::builder()
                .max_capacity(TOKENS_REMEMBERED)
                .time_to_live(CREDENTIAL_CACHE)
                .build(),
        })
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The principal a token names, `None` when it names none (unknown, expired, revoked).
    pub async fn resolve(&self, token: &Presented) -> Result<Option<Principal>, StoreError> {
        let principal = match self.cache.get(&token.digest).await {
            Some(principal) => principal,
            None => {
                let principal = self.lookup(token).await?;
                self.cache.insert(token.digest, principal.clone()).await;
                principal
            }
        };
        // A cached key or session may have ended since.
        Ok(principal.filter(|p| match p {
            Principal::Person(person) => person.ends_at.is_none_or(|end| end > now()),
            Principal::Player { .. } => true,
        }))
    }

    /// Whether the store holds a key that is neither revoked nor expired.
    pub async fn any_live_key(&self) -> Result<bool, StoreError> {
        Ok(self.store.live_key_count(now()).await? > 0)
    }

    /// The designer key `first-run`, made when no key exists yet.
    pub async fn first_run_key(&self) -> anyhow::Result<NewSecret> {
        new_key(self.store.as_ref(), Role::Designer, "first-run", None).await
    }

    /// A new anonymous player; its token is in the answer and nowhere else.
    pub async fn new_player(&self) -> Result<NewSecret, StoreError> {
        let secret = NewSecret::generate(Kind::Player);
        self.store
            .create_player(&secret.id, &secret.hash, now())
            .await?;
        Ok(secret)
    }

    /// Erases the player `token` names, which revokes the token; its plays stay,
    /// anonymous.
    pub async fn erase_player(&self, token: &Presented) -> Result<(), StoreError> {
        self.store.erase_player(&token.id).await?;
        self.forget(token).await;
        Ok(())
    }

    /// Opens a dashboard session for `person`, lasting `lifetime_s` or until the key's own
    /// end, whichever comes first: the new secret (its token is shown only now) and how
    /// many seconds it lasts.
    pub async fn open_session(
        &self,
        person: &Person,
        lifetime_s: i64,
    ) -> Result<(NewSecret, i64), StoreError> {
        let now = now();
        let ends = person
            .ends_at
            .map_or(now + lifetime_s, |end| end.min(now + lifetime_s));
        let session = NewSecret::generate(Kind::Session);
        self.store
            .create_session(&NewSession {
                id: &session.id,
                secret_hash: &session.hash,
                key_id: &person.key_id,
                created_at: now,
                expires_at: ends,
            })
            .await?;
        Ok((session, ends - now))
    }

    /// Ends the live sessions among `tokens` (only a session's own token ends it) and
    /// forgets them all on this replica.
    pub async fn end_sessions<'t>(
        &self,
        tokens: impl Iterator<Item = &'t str>,
    ) -> Result<(), StoreError> {
        let sessions = tokens
            .filter_map(Presented::parse)
            .filter(|p| p.kind == Kind::Session);
        for presented in sessions {
            if self.resolve(&presented).await?.is_some() {
                self.store.delete_session(&presented.id).await?;
            }
            self.forget(&presented).await;
        }
        Ok(())
    }

    /// Forgets a token at once on this replica (sign-out, erasure).
    pub async fn forget(&self, token: &Presented) {
        self.cache.invalidate(&token.digest).await;
    }

    async fn lookup(&self, token: &Presented) -> Result<Option<Principal>, StoreError> {
        match token.kind {
            Kind::Player => Ok(self
                .store
                .player_token_hash(&token.id)
                .await?
                .filter(|hash| token.matches(hash))
                .map(|_| Principal::Player {
                    id: token.id.clone(),
                })),
            Kind::Key => {
                let stored = self.store.key_secret(&token.id).await?;
                let person = stored.and_then(|stored| person(token, &stored));
                if let Some(person) = &person {
                    self.store.touch_key(&person.key_id, now()).await?;
                }
                Ok(person.map(Principal::Person))
            }
            Kind::Session => {
                let stored = self.store.session_secret(&token.id).await?;
                Ok(stored
                    .and_then(|stored| person(token, &stored))
                    .map(Principal::Person))
            }
        }
    }
}

/// Makes and stores a key; the token is in the answer and nowhere else.
pub async fn new_key(
    store: &dyn Store,
    role: Role,
    name: &str,
    expires_days: Option<u32>,
) -> anyhow::Result<NewSecret> {
    if name.trim().is_empty() || name.len() > 100 || name.chars().any(char::is_control) {
        anyhow::bail!("a key's name is 1 to 100 characters of text");
    }
    let key = NewSecret::generate(Kind::Key);
    let created_at = now();
    store
        .create_key(&NewKey {
            id: &key.id,
            name,
            role: role.as_str(),
            secret_hash: &key.hash,
            created_at,
            expires_at: expires_days.map(|days| created_at + i64::from(days) * 86_400),
        })
        .await?;
    Ok(key)
}

/// The person a stored key or session names, if the token matches it and it is live.
fn person(token: &Presented, stored: &StoredSecret) -> Option<Person> {
    let key = &stored.key;
    let ends_at = [key.expires_at, stored.session_expires_at]
        .into_iter()
        .flatten()
        .min();
    let live = key.revoked_at.is_none() && ends_at.is_none_or(|end| end > now());
    let role = Role::parse(&key.role)?;
    (token.matches(&stored.secret_hash) && live).then(|| Person {
        key_id: key.id.clone(),
        name: key.name.clone(),
        role,
        ends_at,
        via_session: stored.session_expires_at.is_some(),
    })
}

/// A key's state in words, for `levelforge keys list`.
pub fn key_state(key: &KeyRecord, now: i64) -> &'static str {
    match (key.revoked_at, key.expires_at) {
        (Some(_), _) => "revoked",
        (None, Some(end)) if end <= now => "expired",
        _ => "live",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_parses_and_matches_only_its_own_hash() {
        for kind in [Kind::Player, Kind::Key, Kind::Session] {
            let new = NewSecret::generate(kind);
            assert!(new.token.starts_with(kind.prefix()));
            // 32 random bytes at least, beside the prefix and id.
            assert!(new.token.len() >= kind.prefix().len() + kind.id_bytes() * 2 + 1 + 43);
            let presented = Presented::parse(&new.token).expect("parses");
            assert_eq!(
                (presented.kind, presented.id.as_str()),
                (kind, new.id.as_str())
            );
            assert!(presented.matches(&new.hash));
            let other = NewSecret::generate(kind);
            assert!(!presented.matches(&other.hash));
            assert!(
                !new.hash
                    .contains(&new.token[kind.prefix().len() + new.id.len() + 1..])
            );
        }
    }

    #[test]
    fn anything_else_is_not_a_token() {
        let good = NewSecret::generate(Kind::Key).token;
        for bad in [
            "",
            "lfk_",
            "lfx_00000000_AAAA",
            &good[..good.len() - 1],
            &good.replace("lfk_", "lfp_"),
            &good.to_uppercase(),
            &format!("{good}A"),
        ] {
            assert!(Presented::parse(bad).is_none(), "{bad}");
        }
    }
}
