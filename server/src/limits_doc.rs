//! The OpenAPI document states `keno_api::limits`: every text of a request body gets its
//! field's `maxLength`, every list `maxItems`, as `body_limits` enforces them. Response bodies
//! are left as they are (they are not read by this server).

use std::collections::BTreeSet;

use keno_api::limits::{text_limit, DEFAULT_TEXT, MAX_ITEMS};
use utoipa::openapi::schema::{ArrayItems, Schema, SchemaType, Type};
use utoipa::openapi::{OpenApi, RefOr};
use utoipa::Modify;

pub struct RequestLimits;

impl Modify for RequestLimits {
    fn modify(&self, openapi: &mut OpenApi) {
        let mut todo: Vec<String> = Vec::new();
        for item in openapi.paths.paths.values_mut() {
            let operations = [
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.patch,
            ];
            for op in operations.into_iter().flatten() {
                let bodies = op
                    .request_body
                    .iter_mut()
                    .flat_map(|b| b.content.values_mut());
                for schema in bodies.filter_map(|c| c.schema.as_mut()) {
                    bound(schema, DEFAULT_TEXT, &mut todo);
                }
            }
        }
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        let mut done = BTreeSet::new();
        while let Some(name) = todo.pop() {
            if !done.insert(name.clone()) {
                continue;
            }
            if let Some(schema) = components.schemas.get_mut(&name) {
                bound(schema, DEFAULT_TEXT, &mut todo);
            }
        }
    }
}

/// Bounds `schema`'s texts (those not named by a property: `max`) and lists; the schemas it
/// refers to are put on `todo`.
fn bound(schema: &mut RefOr<Schema>, max: usize, todo: &mut Vec<String>) {
    let schema = match schema {
        RefOr::Ref(r) => {
            if let Some(name) = r.ref_location.strip_prefix("#/components/schemas/") {
                todo.push(name.to_string());
            }
            return;
        }
        RefOr::T(schema) => schema,
    };
    match schema {
        Schema::Object(o) => {
            if is_text(&o.schema_type) && o.enum_values.is_none() {
                o.max_length = Some(o.max_length.map_or(max, |m| m.min(max)));
            }
            for (name, property) in o.properties.iter_mut() {
                bound(property, text_limit(name), todo);
            }
        }
        Schema::Array(a) => {
            a.max_items = Some(a.max_items.map_or(MAX_ITEMS, |m| m.min(MAX_ITEMS)));
            if let ArrayItems::RefOrSchema(items) = &mut a.items {
                bound(items, max, todo);
            }
        }
        Schema::OneOf(o) => o.items.iter_mut().for_each(|s| bound(s, max, todo)),
        Schema::AllOf(o) => o.items.iter_mut().for_each(|s| bound(s, max, todo)),
        Schema::AnyOf(o) => o.items.iter_mut().for_each(|s| bound(s, max, todo)),
        _ => {}
    }
}

fn is_text(t: &SchemaType) -> bool {
    match t {
        SchemaType::Type(t) => *t == Type::String,
        SchemaType::Array(types) => types.contains(&Type::String),
        SchemaType::AnyValue => false,
    }
}
