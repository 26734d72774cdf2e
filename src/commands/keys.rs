//! `levelforge keys`.

use anyhow::bail;

use crate::config::KeysCommand;
use crate::service::credentials::{Role, key_state, new_key, now};
use crate::service::store;

/// `levelforge keys create|list|revoke`.
pub async fn run(command: &KeysCommand) -> anyhow::Result<()> {
    let database = match command {
        KeysCommand::Create(a) => &a.database,
        KeysCommand::List(a) => &a.database,
        KeysCommand::Revoke(a) => &a.database,
    };
    let store = store::connect(&database.database_url, 2).await?;
    match command {
        KeysCommand::Create(args) => {
            let role = Role::from(args.role);
            let key = new_key(store.as_ref(), role, &args.name, args.expires_days).await?;
            println!(
                "created {} key `{}` (id {}); it is shown only now, store it as a secret:",
                role.as_str(),
                args.name,
                key.id
            );
            println!("{}", key.token);
        }
        KeysCommand::List(_) => print_keys(&store.keys().await?),
        KeysCommand::Revoke(args) => match store.revoke_key(&args.name_or_id, now()).await? {
            Some(key) => println!(
                "revoked key `{}` (id {}); every replica refuses it within {} s",
                key.name,
                key.id,
                crate::service::credentials::CREDENTIAL_CACHE.as_secs()
            ),
            None => bail!("no live key is named or numbered `{}`", args.name_or_id),
        },
    }
    Ok(())
}

fn print_keys(keys: &[store::KeyRecord]) {
    let time = |t: Option<i64>| {
        t.and_then(|t| jiff::Timestamp::from_second(t).ok())
            .map_or("-".to_string(), |t| {
                t.strftime("%Y-%m-%d %H:%M").to_string()
            })
    };
    println!(
        "{:<10} {:<20} {:<9} {:<14} {:<17} {:<17} {:<17} state",
        "id", "name", "role", "prefix", "created", "expires", "last used"
    );
    let now = now();
    for key in keys {
        println!(
            "{:<10} {:<20} {:<9} {:<14} {:<17} {:<17} {:<17} {}",
            key.id,
            key.name,
            key.role,
            format!("lfk_{}", key.id),
            time(Some(key.created_at)),
            time(key.expires_at),
            time(key.last_used_at),
            key_state(key, now)
        );
    }
}
