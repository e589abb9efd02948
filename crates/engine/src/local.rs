//! The local model servers (Ollama, LM Studio) as the user configured them. Every part of the
//! engine that asks whether they are there — the doctor, the catalog's local models, the
//! planner — goes through [`Engine::probe_local_servers`], which asks each once through the
//! providers crate's one probe, [`local::list_models`], at the provider's configured base URL.

use futures_util::future::join_all;
use switchyard_providers::local::{self, LocalError, LocalServer};
use switchyard_providers::registry::{Provider, BUILTIN};

use crate::Engine;

/// One local server and what probing it found.
pub(crate) struct LocalProbe {
    /// The provider (its id, name and configured base URL).
    pub provider: Provider,
    /// Which server it is.
    pub server: LocalServer,
    /// The model names it lists, or why not.
    pub models: Result<Vec<String>, LocalError>,
}

impl Engine {
    /// Probes every local provider at its configured base URL, concurrently, in provider
    /// order. When the provider settings cannot be read the built-in defaults are probed;
    /// none is probed once the engine is closing.
    pub(crate) async fn probe_local_servers(&self) -> Vec<LocalProbe> {
        let providers = match self.providers().await {
            Ok(providers) => providers,
            // The app quit while the probe started (its database is closed): nobody waits for
            // the answer.
            Err(error) if self.supervisor.is_closing() => {
                tracing::debug!(%error, "local servers not probed: the engine is closing");
                return Vec::new();
            }
            Err(error) => {
                tracing::warn!(%error, "provider settings unreadable; probing default local URLs");
                BUILTIN
                    .iter()
                    .map(|spec| Provider::from_spec(spec, None))
                    .collect()
            }
        };
        let servers: Vec<(Provider, LocalServer)> = providers
            .into_iter()
            .filter_map(|provider| {
                let server = provider.local_server()?;
                Some((provider, server))
            })
            .collect();
        let listed = join_all(
            servers
                .iter()
                .map(|(provider, server)| local::list_models(*server, &provider.base_url)),
        )
        .await;
        servers
            .into_iter()
            .zip(listed)
            .map(|((provider, server), models)| LocalProbe {
                provider,
                server,
                models,
            })
            .collect()
    }
}
