include!(concat!(env!("OUT_DIR"), "/round_trip.rs"));
