# syntax=docker/dockerfile:1
# Multi-stage build: cargo-chef caches the dependency build in its own layer, the runtime
# is distroless (no shell, no package manager) and runs as a non-root user.

FROM rust:1.95-bookworm AS chef
RUN cargo install cargo-chef --locked
WORKDIR /app

FROM chef AS planner
COPY . .
RUN cargo chef prepare --recipe-path recipe.json

FROM chef AS builder
COPY --from=planner /app/recipe.json recipe.json
RUN cargo chef cook --release --recipe-path recipe.json
COPY . .
# Migrations are embedded in the binary (sqlx::migrate!) and applied at start.
RUN cargo build --release --bin levelforge && mkdir -p /data

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=builder /app/target/release/levelforge /usr/local/bin/levelforge
# Working directory for the embedded SQLite default (unused when DATABASE_URL is set).
COPY --from=builder --chown=65532:65532 /data /data
WORKDIR /data
ENV BIND=0.0.0.0:8080 \
    LOG_FORMAT=json \
    RUST_LOG=info
EXPOSE 8080
# distroless's `nonroot` user, by number so that the host can resolve it.
USER 65532:65532
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/levelforge", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/levelforge"]
CMD ["serve"]
