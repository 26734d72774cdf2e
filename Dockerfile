# syntax=docker/dockerfile:1
# Multi-stage build: cargo-chef caches the dependency build in its own layer, the runtime
# is distroless (no shell, no package manager) and runs as a non-root user.

# The Rust release CI builds and tests with (tests/docker_context.rs compares them).
FROM rust:1.95.0-bookworm AS chef
RUN cargo install cargo-chef --locked --version 0.1.78
WORKDIR /app

FROM chef AS planner
# The context is what .dockerignore lets through: sources and manifests only.
COPY . .
RUN cargo chef prepare --recipe-path recipe.json

FROM chef AS builder
COPY --from=planner /app/recipe.json recipe.json
RUN cargo chef cook --release --recipe-path recipe.json
COPY . .
# Migrations are embedded in the binary (sqlx::migrate!) and applied at start. The store's
# queries are checked against the committed metadata (store/*/.sqlx): no database here.
RUN cargo build --release --bin levelforge && mkdir -p /data

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=builder /app/target/release/levelforge /usr/local/bin/levelforge
# Working directory for the embedded SQLite default (unused when DATABASE_URL is set).
COPY --from=builder --chown=65532:65532 /data /data
WORKDIR /data
# The ops listener (metrics, probes) stays inside the container unless ADMIN_BIND opens it.
ENV BIND=0.0.0.0:8080 \
    ADMIN_BIND=127.0.0.1:9090 \
    FIRST_RUN_KEY=never \
    LOG_FORMAT=json \
    RUST_LOG=info
EXPOSE 8080
# distroless's `nonroot` user, by number so that the host can resolve it.
USER 65532:65532
# Probes /healthz on ADMIN_BIND's port, which the public listener's connection caps never block.
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/levelforge", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/levelforge"]
CMD ["serve"]
