// Node paths: printing, parsing, resolving, pattern matching.
#include "sparksave/node_path.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/version.hpp"

#include <charconv>

SPARKSAVE_BEGIN_NAMESPACE

namespace {

Error path_error(std::string_view text, std::size_t at, std::string_view what) {
    return make_error(ErrorCode::bad_usage, "bad node path " + display(text, true) +
                                                " at character " + std::to_string(at + 1) + ": " +
                                                std::string(what));
}

// Reads a quoted string starting at text[i] == '"'; on success i is past the closing quote.
bool read_quoted(std::string_view text, std::size_t& i, std::string& out) {
    std::size_t j = i + 1;
    while (j < text.size() && text[j] != '"') {
        if (text[j] == '\\') ++j;
        ++j;
    }
    if (j >= text.size()) return false;
    if (!parse_escaped(text.substr(i + 1, j - i - 1), out)) return false;
    i = j + 1;
    return true;
}

} // namespace

NodePath& NodePath::name(std::string_view text) {
    steps.push_back({PathStep::Kind::name, std::string(text), 0, PathStep::k_no_position, {}});
    return *this;
}

NodePath& NodePath::index(std::uint64_t i) {
    steps.push_back({PathStep::Kind::index, {}, i, PathStep::k_no_position, {}});
    return *this;
}

NodePath& NodePath::name_match(std::string_view text) {
    steps.push_back(
        {PathStep::Kind::name_match, std::string(text), 0, PathStep::k_no_position, {}});
    return *this;
}

void append_path_name(std::string& out, std::string_view name) {
    if (is_bare_name(name)) {
        if (!out.empty()) out += '.';
        out += name;
    } else {
        out += '[';
        append_display(out, name, true);
        out += ']';
    }
}

void append_path_index(std::string& out, std::uint64_t i) {
    out += '[';
    out += std::to_string(i);
    out += ']';
}

std::string NodePath::str() const {
    std::string out;
    for (const auto& s : steps) {
        switch (s.kind) {
        case PathStep::Kind::name:
            append_path_name(out, s.text);
            break;
        case PathStep::Kind::index:
            append_path_index(out, s.index);
            break;
        case PathStep::Kind::name_match:
            out += "[name=";
            if (is_bare_name(s.text))
                out += s.text;
            else
                append_display(out, s.text, true);
            out += ']';
            break;
        case PathStep::Kind::any_one:
            if (!out.empty()) out += '.';
            out += '*';
            break;
        case PathStep::Kind::any_depth:
            if (!out.empty()) out += '.';
            out += "**";
            break;
        }
    }
    return out;
}

Result<NodePath> NodePath::parse(std::string_view text) {
    NodePath path;
    std::size_t i = 0;
    if (text.empty()) return path_error(text, 0, "the path is empty");
    while (i < text.size()) {
        bool first = path.steps.empty();
        if (text[i] == '[') {
            std::size_t start = i++;
            if (i < text.size() && text[i] == '"') {
                std::string name;
                if (!read_quoted(text, i, name))
                    return path_error(text, start, "unterminated or malformed quoted name");
                path.name(name);
            } else if (text.substr(i).starts_with("name=")) {
                i += 5;
                std::string value;
                if (i < text.size() && text[i] == '"') {
                    if (!read_quoted(text, i, value))
                        return path_error(text, start, "unterminated or malformed quoted name");
                } else {
                    std::size_t end = text.find(']', i);
                    if (end == std::string_view::npos)
                        return path_error(text, start, "expected ']' after the name");
                    value = text.substr(i, end - i);
                    i = end;
                }
                path.name_match(value);
            } else if (i < text.size() && text[i] == '*') {
                ++i;
                path.steps.push_back({PathStep::Kind::any_one, {}, 0, PathStep::k_no_position, {}});
            } else {
                std::uint64_t n = 0;
                auto [p, ec] = std::from_chars(text.data() + i, text.data() + text.size(), n);
                if (ec != std::errc() || p == text.data() + i)
                    return path_error(text, i, "expected an index, \"name\", name=NAME or *");
                i = static_cast<std::size_t>(p - text.data());
                path.index(n);
            }
            if (i >= text.size() || text[i] != ']') return path_error(text, i, "expected ']'");
            ++i;
            continue;
        }
        if (!first) {
            if (text[i] != '.') return path_error(text, i, "expected '.' or '['");
            ++i;
        }
        std::size_t start = i;
        if (text.substr(i).starts_with("**")) {
            i += 2;
            path.steps.push_back({PathStep::Kind::any_depth, {}, 0, PathStep::k_no_position, {}});
        } else if (i < text.size() && text[i] == '*') {
            ++i;
            path.steps.push_back({PathStep::Kind::any_one, {}, 0, PathStep::k_no_position, {}});
        } else {
            while (i < text.size() && is_bare_char(text[i])) ++i;
            if (i == start)
                return path_error(text, i,
                                  "expected a name of [A-Za-z0-9_-] (quote others: [\"a.b\"])");
            path.name(text.substr(start, i - start));
        }
        if (i < text.size() && text[i] != '.' && text[i] != '[')
            return path_error(text, i, "expected '.' or '['");
    }
    return path;
}

Result<NodeId> resolve(const Document& doc, const NodePath& path) {
    NodeId at = doc.root();
    NodePath walked;
    for (const auto& step : path.steps) {
        NodeId next = k_no_node;
        switch (step.kind) {
        case PathStep::Kind::name:
            next = doc.child(at, step.text);
            // A name step on a list also finds an item by its name (entities.legacy-player).
            break;
        case PathStep::Kind::index:
            next = step.index < doc.child_count(at)
                       ? doc.child_at(at, static_cast<std::size_t>(step.index))
                       : k_no_node;
            break;
        case PathStep::Kind::name_match:
            next = doc.child(at, step.text);
            break;
        case PathStep::Kind::any_one:
        case PathStep::Kind::any_depth:
            return make_error(ErrorCode::bad_usage,
                              "a pattern (* or **) names no single node: " + path.str());
        }
        walked.steps.push_back(step);
        if (next == k_no_node) {
            std::string msg = "no node at " + walked.str();
            if (walked.steps.size() < path.steps.size()) msg += " (looking for " + path.str() + ")";
            return make_error(ErrorCode::bad_usage, msg);
        }
        at = next;
    }
    return at;
}

namespace {

bool find_path(const Document& doc, NodeId at, NodeId target, std::string& out) {
    if (at == target) return true;
    bool list = doc.node(at).kind == NodeKind::list;
    std::size_t index = 0;
    for (NodeId c : doc.children(at)) {
        std::size_t mark = out.size();
        if (list)
            append_path_index(out, index);
        else
            append_path_name(out, doc.name(c));
        if (find_path(doc, c, target, out)) return true;
        out.resize(mark);
        ++index;
    }
    return false;
}

bool match_from(const std::vector<PathStep>& pat, std::size_t pi, const std::vector<PathStep>& p,
                std::size_t i) {
    while (pi < pat.size()) {
        const PathStep& s = pat[pi];
        if (s.kind == PathStep::Kind::any_depth) {
            for (std::size_t k = i; k <= p.size(); ++k)
                if (match_from(pat, pi + 1, p, k)) return true;
            return false;
        }
        if (i >= p.size()) return false;
        const PathStep& t = p[i];
        bool ok = false;
        switch (s.kind) {
        case PathStep::Kind::any_one:
            ok = true;
            break;
        case PathStep::Kind::index:
            ok = t.kind == PathStep::Kind::index
                     ? t.index == s.index
                     : (t.kind == PathStep::Kind::name || t.kind == PathStep::Kind::name_match) &&
                           t.position == s.index;
            break;
        case PathStep::Kind::name:
        case PathStep::Kind::name_match:
            ok = t.kind == PathStep::Kind::index
                     ? !t.known_name.empty() && t.known_name == s.text
                     : (t.kind == PathStep::Kind::name || t.kind == PathStep::Kind::name_match) &&
                           t.text == s.text;
            break;
        case PathStep::Kind::any_depth:
            break;
        }
        if (!ok) return false;
        ++pi, ++i;
    }
    return i == p.size();
}

} // namespace

std::string path_of(const Document& doc, NodeId target) {
    std::string out;
    find_path(doc, doc.root(), target, out);
    return out;
}

bool path_matches(const NodePath& pattern, const NodePath& path) {
    return match_from(pattern.steps, 0, path.steps, 0);
}

SPARKSAVE_END_NAMESPACE
