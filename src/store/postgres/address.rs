//! Where a ledger on PostgreSQL is: a `postgres://` or `postgresql://` URL, read by
//! libpq's conventions (host, port, user, dbname, `sslmode`; the password from the URL
//! or `PGPASSWORD`), and the schema the ledger lives in (`?schema=`, `jobledger` by
//! default). The password is kept for the connection alone: the address a person is
//! shown has none.

use std::str::FromStr as _;
use std::sync::Arc;

use postgres::config::{Host, SslMode};

/// The schema a ledger lives in when the URL names none.
pub const DEFAULT_SCHEMA: &str = "jobledger";

/// A ledger's server, database and schema, ready to connect to.
#[derive(Clone)]
pub struct ServerAddress {
    config: postgres::Config,
    schema: String,
    tls: TlsCheck,
    /// The URL as given, without its password: what every message shows.
    shown: String,
}

/// How much of the server's certificate is checked (libpq's `sslmode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TlsCheck {
    /// No TLS.
    Disable,
    /// TLS when the server offers it, unchecked, as libpq does by default; never over
    /// a Unix socket, where the server offers none.
    Prefer,
    /// TLS or no connection, the certificate unchecked (libpq's `require`).
    Require,
    /// TLS, the certificate signed by a known authority, for any host name.
    VerifyCa,
    /// TLS, the certificate signed by a known authority and naming the host.
    VerifyFull,
}

impl std::fmt::Debug for ServerAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl PartialEq for ServerAddress {
    fn eq(&self, other: &Self) -> bool {
        self.shown == other.shown && self.schema == other.schema
    }
}

impl Eq for ServerAddress {}

impl std::fmt::Display for ServerAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

/// Does `text` name a ledger on a PostgreSQL server rather than a file?
pub fn is_server_url(text: &str) -> bool {
    text.starts_with("postgres://") || text.starts_with("postgresql://")
}

impl ServerAddress {
    /// Reads a `postgres://` URL. The error says what is wrong without the password.
    pub fn parse(url: &str) -> Result<ServerAddress, String> {
        let shown = without_password(url);
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut schema = DEFAULT_SCHEMA.to_owned();
        let mut tls = TlsCheck::Prefer;
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key {
                "schema" => value.clone_into(&mut schema),
                "sslmode" => {
                    tls = match value {
                        "disable" => TlsCheck::Disable,
                        "allow" | "prefer" => TlsCheck::Prefer,
                        "require" => TlsCheck::Require,
                        "verify-ca" => TlsCheck::VerifyCa,
                        "verify-full" => TlsCheck::VerifyFull,
                        other => {
                            return Err(format!(
                                "sslmode={other} in {shown} is not one of disable, allow, prefer, require, verify-ca, verify-full"
                            ));
                        }
                    }
                }
                _ => kept.push(pair),
            }
        }
        if !valid_schema_name(&schema) {
            return Err(format!(
                "schema={schema} in {shown} is not a plain schema name (lower-case letters, digits and _, starting with a letter or _)"
            ));
        }
        let url_for_libpq = if kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        let mut config = postgres::Config::from_str(&url_for_libpq).map_err(|e| {
            // The parser's words name a key or a value, never the password's text.
            format!("{shown} is not a PostgreSQL URL libpq would read: {e}")
        })?;
        if config.get_password().is_none()
            && let Ok(password) = std::env::var("PGPASSWORD")
        {
            config.password(password);
        }
        if config.get_user().is_none() {
            let user = std::env::var("PGUSER")
                .or_else(|_| std::env::var("USER"))
                .unwrap_or_else(|_| "postgres".to_owned());
            config.user(&user);
        }
        if config.get_hosts().is_empty() {
            match std::env::var("PGHOST") {
                Ok(host) => {
                    config.host(&host);
                }
                // libpq's default: the server's Unix socket in its usual directory.
                Err(_) => {
                    config.host_path("/var/run/postgresql");
                }
            }
        }
        if config.get_dbname().is_none() {
            let user = config.get_user().unwrap_or("postgres").to_owned();
            config.dbname(&user);
        }
        config.application_name("jobledger");
        config.ssl_mode(match tls {
            TlsCheck::Disable => SslMode::Disable,
            TlsCheck::Prefer => SslMode::Prefer,
            TlsCheck::Require | TlsCheck::VerifyCa | TlsCheck::VerifyFull => SslMode::Require,
        });
        Ok(ServerAddress {
            config,
            schema,
            tls,
            shown,
        })
    }

    /// The schema the ledger lives in.
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// The ledger as a person names it in a few characters: its database, and its
    /// schema when that is not the default one (`ops`, `ops/team_b`).
    pub fn short_name(&self) -> String {
        let db = self.config.get_dbname().unwrap_or("?");
        if self.schema == DEFAULT_SCHEMA {
            db.to_owned()
        } else {
            format!("{db}/{}", self.schema)
        }
    }

    /// The server this address reaches, as a person names it (`host:port` or the
    /// socket's directory), for a sentence about a server that cannot be reached.
    pub fn server(&self) -> String {
        let port = self.config.get_ports().first().copied().unwrap_or(5432);
        match self.config.get_hosts().first() {
            Some(Host::Tcp(host)) => format!("{host}:{port}"),
            Some(Host::Unix(dir)) => format!("the socket in {}", dir.display()),
            None => "the default server".to_owned(),
        }
    }

    /// A new connection to the server, with TLS as `sslmode` asks.
    pub fn connect(&self) -> Result<postgres::Client, postgres::Error> {
        let over_socket = self
            .config
            .get_hosts()
            .iter()
            .all(|h| matches!(h, Host::Unix(_)));
        if self.tls == TlsCheck::Disable || (over_socket && self.tls == TlsCheck::Prefer) {
            let mut config = self.config.clone();
            config.ssl_mode(SslMode::Disable);
            return config.connect(postgres::NoTls);
        }
        self.config
            .connect(tokio_postgres_rustls::MakeRustlsConnect::new(tls_config(
                self.tls,
            )))
    }
}

impl ServerAddress {
    /// Asks the server to stop what `token`'s connection is running, over a connection
    /// of its own made as [`ServerAddress::connect`] makes them.
    pub fn cancel(&self, token: &postgres::CancelToken) -> Result<(), postgres::Error> {
        let over_socket = self
            .config
            .get_hosts()
            .iter()
            .all(|h| matches!(h, Host::Unix(_)));
        if self.tls == TlsCheck::Disable || (over_socket && self.tls == TlsCheck::Prefer) {
            return token.cancel_query(postgres::NoTls);
        }
        token.cancel_query(tokio_postgres_rustls::MakeRustlsConnect::new(tls_config(
            self.tls,
        )))
    }
}

/// A schema name the ledger accepts: quoted nowhere, so kept to what needs no quotes.
fn valid_schema_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name.len() <= 63
}

/// `url` with the password taken out, wherever it was: after the user name in the
/// authority, or as a `password=` parameter.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, hosts)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
            format!("{user}@{hosts}")
        }
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let kept: Vec<&str> = query
                .split('&')
                .filter(|pair| !pair.starts_with("password="))
                .collect();
            if kept.is_empty() {
                path.to_owned()
            } else {
                format!("{path}?{}", kept.join("&"))
            }
        }
        None => tail.to_owned(),
    };
    format!("{scheme}://{authority}{tail}")
}

/// The TLS settings for `check`: Mozilla's roots (built in), ring as the crypto.
fn tls_config(check: TlsCheck) -> rustls::ClientConfig {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = Arc::new(rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    });
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .expect("ring supports the default TLS versions");
    match check {
        TlsCheck::VerifyFull => builder.with_root_certificates(roots).with_no_client_auth(),
        TlsCheck::VerifyCa => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verify::AnyName::new(roots, provider)))
            .with_no_client_auth(),
        TlsCheck::Disable | TlsCheck::Prefer | TlsCheck::Require => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verify::Unchecked(provider)))
            .with_no_client_auth(),
    }
}

/// Certificate checks weaker than rustls's own, as libpq's `sslmode` names them.
mod verify {
    use std::sync::Arc;

    use rustls::DigitallySignedStruct;
    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    use rustls::crypto::CryptoProvider;
    use rustls::pki_types::{CertificateDer, ServerName, UnixTime};

    /// `require` (and `prefer`): the traffic is encrypted, the certificate not
    /// checked, as libpq does; the handshake's signatures still are.
    #[derive(Debug)]
    pub struct Unchecked(pub Arc<CryptoProvider>);

    impl ServerCertVerifier for Unchecked {
        fn verify_server_cert(
            &self,
            _end_entity: &CertificateDer<'_>,
            _intermediates: &[CertificateDer<'_>],
            _server_name: &ServerName<'_>,
            _ocsp_response: &[u8],
            _now: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            Ok(ServerCertVerified::assertion())
        }

        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls12_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }

        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls13_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }

        fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
            self.0.signature_verification_algorithms.supported_schemes()
        }
    }

    /// `verify-ca`: the certificate must be signed by a known authority; the name in
    /// it is not compared with the host's.
    #[derive(Debug)]
    pub struct AnyName {
        inner: Arc<rustls::client::WebPkiServerVerifier>,
    }

    impl AnyName {
        pub fn new(roots: Arc<rustls::RootCertStore>, provider: Arc<CryptoProvider>) -> Self {
            let inner =
                rustls::client::WebPkiServerVerifier::builder_with_provider(roots, provider)
                    .build()
                    .expect("the built-in roots are a valid store");
            AnyName { inner }
        }
    }

    impl ServerCertVerifier for AnyName {
        fn verify_server_cert(
            &self,
            end_entity: &CertificateDer<'_>,
            intermediates: &[CertificateDer<'_>],
            server_name: &ServerName<'_>,
            ocsp_response: &[u8],
            now: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            match self.inner.verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                now,
            ) {
                Err(rustls::Error::InvalidCertificate(
                    rustls::CertificateError::NotValidForName
                    | rustls::CertificateError::NotValidForNameContext { .. },
                )) => Ok(ServerCertVerified::assertion()),
                other => other,
            }
        }

        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            self.inner.verify_tls12_signature(message, cert, dss)
        }

        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            self.inner.verify_tls13_signature(message, cert, dss)
        }

        fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
            self.inner.supported_verify_schemes()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ServerAddress, without_password};

    #[test]
    fn the_password_is_never_in_the_address_shown() {
        for url in [
            "postgres://ann:s3cret@db.example:5433/ledger?sslmode=require",
            "postgresql://ann:s3cret@db.example/ledger",
            "postgres://db.example/ledger?password=s3cret&application_name=x",
        ] {
            let shown = without_password(url);
            assert!(!shown.contains("s3cret"), "{shown}");
            let address = ServerAddress::parse(url).expect("a valid URL");
            assert!(!address.to_string().contains("s3cret"));
            assert!(!format!("{address:?}").contains("s3cret"));
        }
        assert_eq!(
            without_password("postgres://ann:s3cret@db.example:5433/ledger?sslmode=require"),
            "postgres://ann@db.example:5433/ledger?sslmode=require"
        );
    }

    #[test]
    fn the_schema_and_sslmode_are_read_and_a_bad_one_refused() {
        let address = ServerAddress::parse("postgres://u@h/d?schema=team_a&sslmode=verify-full")
            .expect("valid");
        assert_eq!(address.schema(), "team_a");
        let refused =
            ServerAddress::parse("postgres://u:pw@h/d?sslmode=sometimes").expect_err("refused");
        assert!(
            refused.contains("sslmode=sometimes") && !refused.contains("pw@"),
            "{refused}"
        );
        assert!(ServerAddress::parse("postgres://u@h/d?schema=Robert%27;DROP").is_err());
    }
}
