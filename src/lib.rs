//! Chat Noir, tangled from the book in `book/src` by `build.rs`: each module below is one root chunk
//! of the book, included from Cargo's `OUT_DIR`. Edit the book, not the tangled files.

/// The world: the state of one game of Chat Noir, and the boards a game starts from.
pub mod world {
    include!(concat!(env!("OUT_DIR"), "/world.rs"));
}

/// Breadth-first search: the distance from one node of a world's graph to every other.
pub mod bfs {
    include!(concat!(env!("OUT_DIR"), "/bfs.rs"));
}

/// The graph of a world: which nodes the cat can step between.
pub mod graph {
    include!(concat!(env!("OUT_DIR"), "/graph.rs"));
}

/// The search the game runs: the same distances as `bfs` over `neighbors`, faster.
pub mod search {
    include!(concat!(env!("OUT_DIR"), "/search.rs"));
}

/// The cells on the cat's shortest paths to the edge.
pub mod cats_path {
    include!(concat!(env!("OUT_DIR"), "/cats_path.rs"));
}

/// Pictures as values: shapes, placed, turned, cropped, and text.
pub mod image {
    include!(concat!(env!("OUT_DIR"), "/image.rs"));
}

/// The pictures of the figures that the book's chapters draw with chunks of their own.
pub mod figures {
    include!(concat!(env!("OUT_DIR"), "/figures.rs"));
}

/// Pictures shown as SVG text.
pub mod svg {
    include!(concat!(env!("OUT_DIR"), "/svg.rs"));
}

/// Pictures shown as pixels, and pixels kept and drawn again only where a picture changed.
pub mod pixels {
    include!(concat!(env!("OUT_DIR"), "/pixels.rs"));
}

/// The cat's three faces.
pub mod cat {
    include!(concat!(env!("OUT_DIR"), "/cat.rs"));
}

/// Where the board's circles go on the screen.
pub mod drawing {
    include!(concat!(env!("OUT_DIR"), "/drawing.rs"));
}

/// Keys and the mouse: from one world to the next.
pub mod input {
    include!(concat!(env!("OUT_DIR"), "/input.rs"));
}

/// The world a new game starts from.
pub mod start {
    include!(concat!(env!("OUT_DIR"), "/start.rs"));
}

/// The keys of the game as a panel over the board.
pub mod keys {
    include!(concat!(env!("OUT_DIR"), "/keys.rs"));
}

/// A game being played, fitted to a window.
pub mod play {
    include!(concat!(env!("OUT_DIR"), "/play.rs"));
}

/// A game's end told on the board: how it ended, its code, and what comes next.
pub mod ending {
    include!(concat!(env!("OUT_DIR"), "/ending.rs"));
}

/// A game's moves shown moving: the block dropping, the cat's hop, the end's motion.
pub mod motion {
    include!(concat!(env!("OUT_DIR"), "/motion.rs"));
}

/// A board's colours on the book's pages: its palettes, and pictures repainted in them.
pub mod palette {
    include!(concat!(env!("OUT_DIR"), "/palette.rs"));
}

/// The figures of Part I that answer the mouse in the book's pages.
pub mod live_figure {
    include!(concat!(env!("OUT_DIR"), "/live_figure.rs"));
}

/// What a listener who cannot see the board is told of each change to a game.
pub mod listener {
    include!(concat!(env!("OUT_DIR"), "/listener.rs"));
}

/// The game in a web page, and the figures that answer the mouse: what the page's script calls.
pub mod web {
    include!(concat!(env!("OUT_DIR"), "/web.rs"));
}

/// The page's worker: the coach's answers and certified deals, off the page's thread.
pub mod worker {
    include!(concat!(env!("OUT_DIR"), "/worker.rs"));
}

/// The command line.
pub mod cli {
    include!(concat!(env!("OUT_DIR"), "/cli.rs"));
}

/// The solver: whether the player can force a win, certified deals, the perfect cat. Each chapter of
/// Part III makes one module below, and each item has one path, `solve::MODULE::ITEM`.
pub mod solve {
    /// The solver's board as bits, positions, the two cats, the plain search, the two-distance, verdicts.
    pub mod board {
        include!(concat!(env!("OUT_DIR"), "/solve_board.rs"));
    }

    /// Proof-number search: proving wins.
    pub mod proof {
        include!(concat!(env!("OUT_DIR"), "/solve_proof.rs"));
    }

    /// The perfect cat's escape: proving its ways out, or that it has none.
    pub mod escape {
        include!(concat!(env!("OUT_DIR"), "/solve_escape.rs"));
    }

    /// Solving a position: the searches together, and the game's perfect cat.
    pub mod solving {
        include!(concat!(env!("OUT_DIR"), "/solve_solving.rs"));
    }

    /// How fast a win can be.
    pub mod fastest {
        include!(concat!(env!("OUT_DIR"), "/solve_fastest.rs"));
    }

    /// The coach's side of the solver.
    pub mod coach {
        include!(concat!(env!("OUT_DIR"), "/solve_coach.rs"));
    }

    /// Certified deals.
    pub mod deals {
        include!(concat!(env!("OUT_DIR"), "/solve_deals.rs"));
    }

    /// The study: many deals on every core.
    pub mod study {
        include!(concat!(env!("OUT_DIR"), "/solve_study.rs"));
    }
}

/// The original's tests, gathered as the original gathers them.
#[cfg(test)]
mod tests {
    include!(concat!(env!("OUT_DIR"), "/tests.rs"));
}

/// Our own tests: those of Part II, properties of random boards, and snapshots.
#[cfg(test)]
mod our_tests {
    include!(concat!(env!("OUT_DIR"), "/our_tests.rs"));
}

/// The solver's tests.
#[cfg(test)]
mod solver_tests {
    include!(concat!(env!("OUT_DIR"), "/solver_tests.rs"));
}
