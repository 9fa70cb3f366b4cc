//! Weaving: turning chapters into what mdbook renders (captions, anchors, links, an index).
