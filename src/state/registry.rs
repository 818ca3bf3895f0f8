//! The action registry (`GET /v1/actions`), loaded on first use and kept: the catalog and every
//! form read the same answer.

use api_contract::ActionList;
use leptos::prelude::*;

use super::session::Session;
use crate::api::ApiError;

pub type RegistryResource = LocalResource<Result<ActionList, ApiError>>;

/// Holds the resource once a page has asked for it.
#[derive(Clone, Copy)]
pub struct Registry {
    resource: StoredValue<Option<RegistryResource>>,
    /// The app's owner: the resource is created under it, so it outlives the page that first
    /// asked for it.
    owner: StoredValue<Owner>,
    session: Session,
}

impl Registry {
    /// Provided as context at the root, under the `Session`.
    pub fn provide(session: Session) {
        provide_context(Registry {
            resource: StoredValue::new(None),
            owner: StoredValue::new(
                Owner::current().expect("the registry is provided under the app"),
            ),
            session,
        });
    }

    /// The registry, fetched on the first call (again only if the session changes).
    pub fn resource(&self) -> RegistryResource {
        if let Some(resource) = self.resource.get_value() {
            return resource;
        }
        let session = self.session;
        let resource = self.owner.with_value(|owner| {
            owner.with(|| {
                LocalResource::new(move || {
                    let client = session.client();
                    async move { client.ok_or(ApiError::SignedOut)?.actions().await }
                })
            })
        });
        self.resource.set_value(Some(resource));
        resource
    }
}

pub fn use_registry() -> RegistryResource {
    expect_context::<Registry>().resource()
}
