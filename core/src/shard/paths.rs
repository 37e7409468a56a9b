//! The frames' nodes in the calling-context tree ([`crate::stacks`]): what a push stores
//! in its frame when the stacks or the trace are on, as `Entered::extra` carries it
//! (the node in the low bits, `stacks::{STACKS, TRACE, FOLDED}` above).
//!
//! A frame's node is its parent frame's node plus its site (`Tree::intern`); frames
//! pushed while the stacks were off, or whose tree was reset since, hold no node (0) and
//! get theirs again from the sites below them when a frame above needs it.

use std::sync::atomic::Ordering::Relaxed;

use super::stack::Stack;
use crate::stacks::{CtxRef, ThreadTree, Tree, CTX, FOLDED, ROOT, STACKS, TRACE};

/// The extras of a frame being pushed at `depth < MAX_DEPTH` for `site` (the frame's
/// site is stored), with `bits` the extras a shard cached when it synced
/// (`stacks::bits`): its node when stacks are on, and whether its exit writes the trace.
/// Inline: stacks alone, and the node is the one its parent's node found last (a loop
/// calling one function); else [`enter`].
#[inline(always)]
pub(crate) fn enter_fast(
    stack: &Stack,
    tree: &ThreadTree,
    bits: u64,
    depth: usize,
    site: u32,
) -> u32 {
    if bits == TRACE as u64 {
        // The trace alone: no node.
        if let Some(f) = stack.frame(depth) {
            f.ctx.store(0, Relaxed);
        }
        return TRACE;
    }
    if bits == STACKS as u64 && depth > 0 {
        if let (Some(tree), Some(below), Some(f)) =
            (tree.get(), stack.frame(depth - 1), stack.frame(depth))
        {
            if let Some(ctx) = tree.memo(below.ctx.load(Relaxed), site) {
                f.ctx.store(ctx, Relaxed);
                return STACKS | (ctx & CTX);
            }
        }
    }
    enter(stack, tree, depth, site)
}

/// [`enter_fast`]'s general case.
#[inline(never)]
pub(crate) fn enter(stack: &Stack, tree: &ThreadTree, depth: usize, site: u32) -> u32 {
    enter_with(stack, tree, depth, site, None)
}

/// [`enter`] for a later poll of a future: the frame's node is the path of its first
/// poll, `path`.
#[inline(never)]
pub(crate) fn enter_on(
    stack: &Stack,
    tree: &ThreadTree,
    depth: usize,
    site: u32,
    path: CtxRef,
) -> u32 {
    enter_with(stack, tree, depth, site, Some(path))
}

#[inline(always)]
fn enter_with(
    stack: &Stack,
    tree: &ThreadTree,
    depth: usize,
    site: u32,
    inherit: Option<CtxRef>,
) -> u32 {
    let mut extra = if crate::state::trace() { TRACE } else { 0 };
    let mut ctx = 0;
    if crate::state::stacks() {
        let tree = tree.get_or_new();
        let parent = if depth == 0 {
            ROOT
        } else {
            ctx_at(stack, tree, depth - 1)
        };
        ctx = match inherit.and_then(|r| tree.translate(r)) {
            Some(c) => c,
            None => tree.intern(parent, site),
        };
        extra |= STACKS;
        if ctx == parent {
            extra |= FOLDED;
        }
    }
    if let Some(f) = stack.frame(depth) {
        f.ctx.store(ctx, Relaxed);
    }
    extra | (ctx & CTX)
}

/// The node of frame `d` (below the top), computed from the frames below it when
/// they were pushed without one (stacks were off, or a reset forgot them).
#[inline(always)]
fn ctx_at(stack: &Stack, tree: &Tree, d: usize) -> u32 {
    match stack.frame(d).map_or(0, |f| f.ctx.load(Relaxed)) {
        0 => ctx_from_sites(stack, tree, d),
        c => c,
    }
}

#[cold]
#[inline(never)]
fn ctx_from_sites(stack: &Stack, tree: &Tree, d: usize) -> u32 {
    let mut low = d + 1;
    while low > 0 && stack.frame(low - 1).map_or(0, |f| f.ctx.load(Relaxed)) == 0 {
        low -= 1;
    }
    let mut ctx = if low == 0 {
        ROOT
    } else {
        stack.frame(low - 1).map_or(ROOT, |f| f.ctx.load(Relaxed))
    };
    for f in (low..=d).map_while(|i| stack.frame(i)) {
        ctx = tree.intern(ctx, f.site.load(Relaxed));
        f.ctx.store(ctx, Relaxed);
    }
    ctx
}
