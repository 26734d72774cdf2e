//! The container and cluster files checked against the binary's real command line: every
//! environment variable they set is one the binary reads (with a value it accepts), every
//! subcommand they run exists, the replicas profile's nginx front matches the replica
//! services, and the Kubernetes manifests' ports, probes and timings are the server's.
//! (scripts/container-test.sh runs the image and the stack; this test needs no engine.)

use std::collections::HashMap;

use clap::CommandFactory;
use levelforge::config::Cli;
use yaml_serde::Value;

/// Every environment variable any subcommand reads, plus the ones read outside clap.
fn known_env() -> Vec<String> {
    fn walk(command: &clap::Command, out: &mut Vec<String>) {
        for arg in command.get_arguments() {
            if let Some(env) = arg.get_env() {
                out.push(env.to_string_lossy().into_owned());
            }
        }
        for sub in command.get_subcommands() {
            walk(sub, out);
        }
    }
    let mut out = vec!["RUST_LOG".to_string()];
    walk(&Cli::command(), &mut out);
    out
}

fn subcommands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect()
}

fn read(name: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

/// The `serve` flag (`--long`) of every environment variable it reads.
fn serve_flags_by_env() -> HashMap<String, String> {
    let cli = Cli::command();
    let serve = cli.find_subcommand("serve").expect("serve subcommand");
    serve
        .get_arguments()
        .filter_map(|arg| {
            let env = arg.get_env()?.to_string_lossy().into_owned();
            Some((env, format!("--{}", arg.get_long()?)))
        })
        .collect()
}

/// docker-compose.yml as compose reads it: anchors expanded, `<<` merge keys applied.
fn compose() -> Value {
    let mut compose: Value = yaml_serde::from_str(&read("docker-compose.yml")).unwrap();
    compose.apply_merge().unwrap();
    compose
}

fn services(compose: &Value) -> Vec<(String, &Value)> {
    compose["services"]
        .as_mapping()
        .expect("services")
        .iter()
        .map(|(name, service)| (name.as_str().unwrap().to_string(), service))
        .collect()
}

/// The services that run levelforge (built from this repository).
fn levelforge_services(compose: &Value) -> Vec<(String, &Value)> {
    services(compose)
        .into_iter()
        .filter(|(_, service)| service.get("build").is_some())
        .collect()
}

fn env_of(service: &Value) -> Vec<(String, String)> {
    let Some(env) = service["environment"].as_mapping() else {
        return Vec::new();
    };
    env.iter()
        .map(|(key, value)| {
            let value = match value {
                Value::String(text) => text.clone(),
                other => panic!("{key:?}: quote {other:?}, compose wants strings"),
            };
            (key.as_str().unwrap().to_string(), value)
        })
        .collect()
}

fn env_value(service: &Value, key: &str) -> Option<String> {
    env_of(service)
        .into_iter()
        .find_map(|(k, v)| (k == key).then_some(v))
}

fn profiles(service: &Value) -> Vec<&str> {
    service["profiles"]
        .as_sequence()
        .map(|p| p.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[test]
fn compose_settings_are_real_flags_with_valid_values() {
    let compose = compose();
    let flags = serve_flags_by_env();
    let services = levelforge_services(&compose);
    assert!(services.len() >= 3, "one instance and two replicas");
    for (name, service) in services {
        // The values go through the binary's own parser, as `levelforge serve` would read them.
        let mut argv = vec!["levelforge".to_string(), "serve".to_string()];
        let env = env_of(service);
        // Every setting is spelled out, so ops see (and can change) each one in place.
        for key in flags.keys() {
            assert!(
                env.iter().any(|(set, _)| set == key),
                "{name} does not set {key}"
            );
        }
        for (key, value) in env {
            if key == "RUST_LOG" {
                continue; // read by the log filter, not by clap
            }
            let flag = flags.get(&key).unwrap_or_else(|| {
                panic!("{name} sets {key}, which `levelforge serve` never reads")
            });
            argv.extend([flag.clone(), value]);
        }
        if let Err(error) = <Cli as clap::Parser>::try_parse_from(&argv) {
            panic!("{name}: levelforge would not start with these settings: {error}");
        }
        let depends = &service["depends_on"]["postgres"]["condition"];
        assert_eq!(depends.as_str(), Some("service_healthy"), "{name}");
    }
    let postgres = &compose["services"]["postgres"];
    assert!(
        postgres["healthcheck"]["test"].is_sequence(),
        "postgres has a health check"
    );
}

#[test]
fn the_replicas_profile_puts_two_replicas_behind_nginx() {
    let compose = compose();
    let replicas: Vec<_> = levelforge_services(&compose)
        .into_iter()
        .filter(|(_, service)| profiles(service).contains(&"replicas"))
        .collect();
    assert_eq!(replicas.len(), 2, "two replicas");
    let nginx = read("deploy/nginx.conf");
    let upstream = nginx_upstream(&nginx);
    for (name, service) in &replicas {
        assert_eq!(
            env_value(service, "TRUST_FORWARDED").as_deref(),
            Some("true"),
            "{name} is behind the proxy: the client is the forwarded address"
        );
        assert!(
            service.get("ports").is_none(),
            "{name} trusts X-Forwarded-For, so only the proxy may reach it"
        );
        let bind = env_value(service, "BIND").expect("BIND");
        let port = bind.rsplit_once(':').expect("host:port").1;
        let server = format!("{name}:{port}");
        assert!(
            upstream.contains(&server),
            "nginx.conf's upstream has no `server {server}`: {upstream:?}"
        );
    }
    assert_eq!(upstream.len(), replicas.len(), "{upstream:?}");

    let (_, proxy) = services(&compose)
        .into_iter()
        .find(|(_, service)| {
            service["image"]
                .as_str()
                .is_some_and(|i| i.starts_with("nginx"))
        })
        .expect("an nginx service");
    assert_eq!(profiles(proxy), ["replicas"]);
    let mounts: Vec<_> = proxy["volumes"].as_sequence().unwrap().iter().collect();
    assert!(
        mounts
            .iter()
            .any(|m| m.as_str() == Some("./deploy/nginx.conf:/etc/nginx/nginx.conf:ro")),
        "{mounts:?}"
    );
    for (name, _) in &replicas {
        let condition = &proxy["depends_on"][name.as_str()]["condition"];
        assert_eq!(
            condition.as_str(),
            Some("service_healthy"),
            "proxy waits for {name}"
        );
    }
    for directive in [
        "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
        "client_header_timeout",
        "proxy_read_timeout",
        "proxy_connect_timeout",
    ] {
        assert!(nginx.contains(directive), "nginx.conf lacks {directive}");
    }
}

/// The `host:port` of every `server` line in nginx.conf's `upstream` block.
fn nginx_upstream(conf: &str) -> Vec<String> {
    let block = conf
        .split_once("upstream ")
        .and_then(|(_, rest)| rest.split_once('{'))
        .and_then(|(_, rest)| rest.split_once('}'))
        .expect("an upstream block")
        .0;
    block
        .lines()
        .map(str::trim)
        .filter_map(|line| line.strip_prefix("server "))
        .map(|rest| {
            rest.split_whitespace()
                .next()
                .unwrap()
                .trim_end_matches(';')
                .to_string()
        })
        .collect()
}

/// The `KEY=value` words of every `ENV` instruction, continuation lines included.
fn env_assignments(dockerfile: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut in_env = false;
    for line in dockerfile.lines() {
        if line.starts_with("ENV ") {
            in_env = true;
        }
        if in_env {
            let body = line.trim_start_matches("ENV").trim_end_matches('\\');
            words.extend(body.split_whitespace().map(str::to_string));
            in_env = line.trim_end().ends_with('\\');
        }
    }
    words
}

#[test]
fn dockerfile_runs_real_subcommands_and_variables() {
    let dockerfile = read("Dockerfile");
    let subs = subcommands();
    for needed in ["healthcheck", "serve"] {
        assert!(
            subs.iter().any(|s| s == needed),
            "levelforge has no `{needed}` subcommand"
        );
        assert!(
            dockerfile.contains(&format!("\"{needed}\"")),
            "Dockerfile does not run `{needed}`"
        );
    }
    let known = known_env();
    let assignments = env_assignments(&dockerfile);
    assert!(
        assignments.iter().any(|a| a.starts_with("BIND=")),
        "Dockerfile sets BIND"
    );
    for assignment in assignments {
        let (key, _) = assignment.split_once('=').expect("KEY=value");
        assert!(
            known.contains(&key.to_string()),
            "Dockerfile sets {key}, which levelforge never reads"
        );
    }
}

#[test]
fn healthcheck_defaults_to_the_ops_listener() {
    use clap::Parser;
    let cli = Cli::try_parse_from(["levelforge", "healthcheck"]).unwrap();
    let Some(levelforge::config::Command::Healthcheck(args)) = cli.command else {
        panic!("healthcheck")
    };
    assert_eq!(args.admin.admin_bind.port(), 9090);
}

/// One manifest of deploy/kubernetes/.
fn manifest(name: &str) -> Value {
    yaml_serde::from_str(&read(&format!("deploy/kubernetes/{name}"))).unwrap()
}

/// The port number of `host:port`.
fn port_of(bind: &str) -> u64 {
    bind.rsplit_once(':').expect("host:port").1.parse().unwrap()
}

/// The Deployment's container, its env as (name, value or None for a secret) pairs.
fn kubernetes_container() -> (Value, Vec<(String, Option<String>)>) {
    let deployment = manifest("deployment.yaml");
    let container = deployment["spec"]["template"]["spec"]["containers"][0].clone();
    let env = container["env"]
        .as_sequence()
        .expect("env")
        .iter()
        .map(|e| {
            let name = e["name"].as_str().unwrap().to_string();
            (name, e["value"].as_str().map(str::to_string))
        })
        .collect();
    (container, env)
}

/// The value the Deployment gives an environment variable.
fn env_set(env: &[(String, Option<String>)], key: &str) -> String {
    let value = env
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.clone());
    value.unwrap_or_else(|| panic!("the Deployment sets no value for {key}"))
}

#[test]
fn kubernetes_settings_are_real_flags_with_valid_values() {
    let (container, env) = kubernetes_container();
    let flags = serve_flags_by_env();
    let args: Vec<&str> = container["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(args, ["serve"]);
    let mut argv = vec!["levelforge".to_string(), "serve".to_string()];
    for key in flags.keys() {
        assert!(
            env.iter().any(|(set, _)| set == key),
            "the Deployment does not set {key}"
        );
    }
    for (key, value) in &env {
        if key == "RUST_LOG" {
            continue;
        }
        let flag = flags
            .get(key)
            .unwrap_or_else(|| panic!("{key}: `levelforge serve` never reads it"));
        let value = match (key.as_str(), value) {
            ("DATABASE_URL", None) => "postgres://levelforge@db/levelforge".to_string(),
            (_, Some(value)) => value.clone(),
            (_, None) => panic!("{key} has no value"),
        };
        argv.extend([flag.clone(), value]);
    }
    if let Err(error) = <Cli as clap::Parser>::try_parse_from(&argv) {
        panic!("levelforge would not start with the Deployment's settings: {error}");
    }
    let secret = &container["env"].as_sequence().unwrap()[0]["valueFrom"]["secretKeyRef"];
    assert_eq!(
        secret["name"].as_str(),
        Some("levelforge-database"),
        "DATABASE_URL from the Secret"
    );
}

#[test]
fn kubernetes_ports_and_probes_are_the_listeners() {
    let (container, env) = kubernetes_container();
    let value = |key: &str| env_set(&env, key);
    let port = |name: &str| {
        let ports = container["ports"].as_sequence().unwrap();
        let port = ports.iter().find(|p| p["name"].as_str() == Some(name));
        port.unwrap_or_else(|| panic!("no container port {name}"))["containerPort"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(port("http"), port_of(&value("BIND")));
    assert_eq!(port("ops"), port_of(&value("ADMIN_BIND")));
    assert!(
        value("ADMIN_BIND").starts_with("0.0.0.0:"),
        "the kubelet probes the pod's address"
    );
    for (probe, path) in [
        ("startupProbe", "/healthz"),
        ("livenessProbe", "/healthz"),
        ("readinessProbe", "/readyz"),
    ] {
        let get = &container[probe]["httpGet"];
        assert_eq!(get["path"].as_str(), Some(path), "{probe}");
        assert_eq!(
            get["port"].as_str(),
            Some("ops"),
            "{probe} on the ops listener"
        );
    }
    let service = manifest("service.yaml");
    assert_eq!(
        service["spec"]["ports"][0]["targetPort"].as_str(),
        Some("http")
    );
    let policy = manifest("networkpolicy.yaml");
    let rules = policy["spec"]["ingress"].as_sequence().unwrap();
    let ops_rules: Vec<_> = rules
        .iter()
        .filter(|r| r["ports"][0]["port"].as_str() == Some("ops"))
        .collect();
    assert_eq!(
        ops_rules.len(),
        1,
        "one rule lets the scraper reach the ops port"
    );
    assert!(
        ops_rules[0]["from"][0]["podSelector"].is_mapping(),
        "only the scraper's pods"
    );
}

#[test]
fn kubernetes_pods_stop_within_their_grace_and_run_locked_down() {
    let deployment = manifest("deployment.yaml");
    let pod = &deployment["spec"]["template"]["spec"];
    let (container, env) = kubernetes_container();
    let value = |key: &str| env_set(&env, key);
    let grace_ms: u64 = value("HTTP_SHUTDOWN_GRACE_MS").parse().unwrap();
    let pre_stop_s = container["lifecycle"]["preStop"]["sleep"]["seconds"]
        .as_u64()
        .unwrap();
    let termination_s = pod["terminationGracePeriodSeconds"].as_u64().unwrap();
    assert!(
        termination_s * 1000 > pre_stop_s * 1000 + grace_ms,
        "SIGKILL ({termination_s} s) comes after preStop ({pre_stop_s} s) and the server's grace ({grace_ms} ms)"
    );
    assert!(deployment["spec"]["replicas"].as_u64().unwrap() >= 2);
    let security = &container["securityContext"];
    assert_eq!(security["runAsNonRoot"].as_bool(), Some(true));
    assert_eq!(security["readOnlyRootFilesystem"].as_bool(), Some(true));
    assert_eq!(security["allowPrivilegeEscalation"].as_bool(), Some(false));
    assert_eq!(security["capabilities"]["drop"][0].as_str(), Some("ALL"));
    let dockerfile_user = read("Dockerfile")
        .lines()
        .find_map(|l| l.strip_prefix("USER ").map(str::to_string))
        .unwrap();
    assert_eq!(
        format!("{0}:{0}", security["runAsUser"].as_u64().unwrap()),
        dockerfile_user
    );
    let hpa = manifest("horizontalpodautoscaler.yaml");
    let pdb = manifest("poddisruptionbudget.yaml");
    assert_eq!(
        hpa["spec"]["scaleTargetRef"]["name"],
        deployment["metadata"]["name"]
    );
    assert!(hpa["spec"]["minReplicas"].as_u64().unwrap() >= 2);
    assert!(
        pdb["spec"]["minAvailable"].as_u64().unwrap()
            < hpa["spec"]["minReplicas"].as_u64().unwrap(),
        "a drain can proceed"
    );
    let labels = &deployment["spec"]["template"]["metadata"]["labels"];
    let service = manifest("service.yaml");
    for selector in [
        &pdb["spec"]["selector"]["matchLabels"],
        &service["spec"]["selector"],
    ] {
        assert_eq!(selector, labels, "selects the Deployment's pods");
    }
}
