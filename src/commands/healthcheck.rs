//! `levelforge healthcheck`.

use std::time::Duration;

use anyhow::{Context, bail};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::HealthcheckArgs;

/// `levelforge healthcheck`: a plain HTTP/1.1 GET of /healthz on the local port.
pub async fn run(args: &HealthcheckArgs) -> anyhow::Result<()> {
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], args.admin.admin_bind.port()));
    let probe = async {
        let mut stream = tokio::net::TcpStream::connect(address).await?;
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .await?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await?;
        anyhow::Ok(answer)
    };
    let answer = tokio::time::timeout(Duration::from_secs(3), probe)
        .await
        .context("timed out")??;
    if answer.starts_with(b"HTTP/1.1 200") {
        Ok(())
    } else {
        bail!(
            "unhealthy: {}",
            String::from_utf8_lossy(&answer[..answer.len().min(64)])
        )
    }
}
