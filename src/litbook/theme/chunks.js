// Finishes every chunk once mdbook has highlighted it: the caption's links to the chunk's parts,
// and links in the code; and opens a figure that scrolls sideways on its middle. Each `// <<name>>` reference line
// becomes a link to the chunk it names (marked with the chunk's chapter when that is another one),
// and each identifier the book defines becomes a link to its definition, with a title that says
// where that is. The weaver puts what is needed on each chunk's element (data-refs, data-idents);
// the code's text is left as written, so that the copy button copies the chunk as it is written.
(function () {
    "use strict";

    const REFERENCE = /^(\s*)(\/\/\s*<<\s*(.+?)\s*>>)\s*$/;
    const WORD = /[A-Za-z_][A-Za-z0-9_]*/g;

    function parse(json) {
        try {
            return JSON.parse(json || "null") || {};
        } catch (e) {
            return {};
        }
    }

    function link(text, href, title, className) {
        const a = document.createElement("a");
        a.className = className;
        a.href = href;
        a.title = title;
        a.textContent = text;
        return a;
    }

    // The text nodes of an element, in order.
    function textNodes(element) {
        const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
        const nodes = [];
        while (walker.nextNode()) {
            nodes.push(walker.currentNode);
        }
        return nodes;
    }

    function inCommentOrString(node) {
        const parent = node.parentElement;
        return parent && parent.closest(".hljs-comment, .hljs-string, .hljs-doctag, .hljs-quote");
    }

    // A reference line is one comment; its text node gets replaced by a link to the chunk.
    function linkReference(node, refs) {
        const match = node.nodeValue.match(REFERENCE);
        if (!match) {
            return false;
        }
        const name = match[3].replace(/\s+/g, " ");
        const target = refs[name];
        if (!target) {
            return false;
        }
        const title = "⟨" + name + "⟩ in " + (target.where || target.chapter + ", this chapter");
        const a = link(match[2], target.href, title, "chunk-ref");
        if (target.where) {
            a.dataset.where = target.where;
        }
        a.dataset.number = String(target.number);
        const fragment = document.createDocumentFragment();
        fragment.append(match[1], a);
        node.replaceWith(fragment);
        return true;
    }

    // Links the defined identifiers of a text node to what each certainly names, by how it is
    // written (see the weaver's identifiers_data): `Type::name` to the type's own, `.name(` to a
    // method no standard type has, a word alone or after a module's path to a free item; a field
    // (`.name` with no call) to nothing. `before` and `after` are the code's text around the node.
    function linkIdentifiers(node, before, after, idents) {
        const text = node.nodeValue;
        const fragment = document.createDocumentFragment();
        let at = 0;
        let linked = false;
        for (const match of text.matchAll(WORD)) {
            if (!Object.prototype.hasOwnProperty.call(idents, match[0])) {
                continue;
            }
            const following = text.slice(match.index + match[0].length) + after;
            if (following.startsWith("::") && /^[a-z]/.test(match[0])) {
                continue; // a module of a path, not an item
            }
            const preceding = (before + text.slice(0, match.index)).trimEnd();
            const target = certainTarget(idents[match[0]], preceding, following.trimStart());
            if (!target) {
                continue;
            }
            fragment.append(text.slice(at, match.index));
            fragment.append(link(match[0], target.href, target.title, "chunk-ident"));
            at = match.index + match[0].length;
            linked = true;
        }
        if (linked) {
            fragment.append(text.slice(at));
            node.replaceWith(fragment);
        }
    }

    // What a name written between `preceding` and `following` names, of `ways`, if that is certain.
    function certainTarget(ways, preceding, following) {
        const owner = preceding.match(/([A-Za-z_][A-Za-z0-9_]*)\s*::$/);
        if (owner && /^[A-Z]/.test(owner[1])) {
            const owners = ways.owners || {};
            if (Object.prototype.hasOwnProperty.call(owners, owner[1])) {
                return owners[owner[1]];
            }
            const all = Object.values(owners);
            return owner[1] === "Self" && all.length === 1 ? all[0] : null;
        }
        if (preceding.endsWith(".")) {
            const called = following.startsWith("(") || following.startsWith("::<");
            return called ? ways.method || null : null;
        }
        return ways.free || null;
    }

    // The caption's heading keeps mdbook's link to itself as the chunk's name, inside a span, so
    // that the sidebar's outline of the page, which takes headings that start with a link, leaves
    // the chunks out.
    function nameHeading(chunk) {
        const heading = chunk.querySelector(".chunk-heading");
        const link = heading && heading.querySelector("a.header");
        if (!link) {
            return;
        }
        link.classList.add("chunk-name");
        const span = document.createElement("span");
        heading.replaceChildren(span);
        span.append(link);
    }

    // The links to every part of a chunk, from the caption's data-parts; the part shown is marked.
    function partLinks(chunk) {
        const nav = chunk.querySelector(".chunk-nav[data-parts]");
        if (!nav) {
            return;
        }
        nav.append("parts");
        for (const part of parse(nav.dataset.parts)) {
            nav.append(" ");
            if (part.current) {
                const span = document.createElement("span");
                span.className = "chunk-part-current";
                span.title = part.title;
                span.textContent = String(part.n);
                nav.append(span);
            } else {
                nav.append(link(String(part.n), part.href, part.title, "chunk-part"));
            }
        }
    }

    function linkChunk(chunk) {
        nameHeading(chunk);
        partLinks(chunk);
        const code = chunk.querySelector("pre > code");
        if (!code) {
            return;
        }
        const refs = parse(chunk.dataset.refs);
        const idents = parse(chunk.dataset.idents);
        const whole = code.textContent;
        let before = "";
        for (const node of textNodes(code)) {
            const text = node.nodeValue;
            const after = whole.slice(before.length + text.length);
            if (!linkReference(node, refs) && !inCommentOrString(node)) {
                linkIdentifiers(node, before, after, idents);
            }
            before += text;
        }
    }

    document.querySelectorAll(".chunk").forEach(linkChunk);

    // A picture that keeps its own size scrolls sideways on a narrow screen; it opens on its
    // middle, where a tree's root or a board's centre is, rather than on its left edge.
    for (const picture of document.querySelectorAll("figure.chunk-figure .at-its-own-size")) {
        picture.scrollLeft = (picture.scrollWidth - picture.clientWidth) / 2;
    }
})();
