//! How some fields are kept in the build cache: times as numbers, JSON as text.

/// A time as seconds and nanoseconds since the epoch: read back from the build cache many
/// times faster than RFC 3339 text.
pub(super) mod compact_time {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::model::Timestamp;

    pub fn serialize<S: Serializer>(time: &Timestamp, serializer: S) -> Result<S::Ok, S::Error> {
        (time.timestamp(), time.timestamp_subsec_nanos()).serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Timestamp, D::Error> {
        let (secs, nanos) = <(i64, u32)>::deserialize(deserializer)?;
        Timestamp::from_timestamp(secs, nanos)
            .ok_or_else(|| serde::de::Error::custom("time out of range"))
    }

    pub mod option {
        use super::*;

        pub fn serialize<S: Serializer>(
            time: &Option<Timestamp>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            time.map(|t| (t.timestamp(), t.timestamp_subsec_nanos()))
                .serialize(serializer)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<Timestamp>, D::Error> {
            Option::<(i64, u32)>::deserialize(deserializer)?
                .map(|(secs, nanos)| {
                    Timestamp::from_timestamp(secs, nanos)
                        .ok_or_else(|| serde::de::Error::custom("time out of range"))
                })
                .transpose()
        }
    }
}

/// An untyped JSON value as its text, for formats that only hold typed data.
pub(super) mod json_text {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(
        value: &Option<serde_json::Value>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        value
            .as_ref()
            .map(serde_json::Value::to_string)
            .serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<serde_json::Value>, D::Error> {
        Option::<String>::deserialize(deserializer)?
            .map(|text| serde_json::from_str(&text).map_err(serde::de::Error::custom))
            .transpose()
    }
}
