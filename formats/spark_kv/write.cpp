// Writing the tree back to spark-kv bytes (formats/README.md §3; the tree: spec.hpp): the marker
// line for v2, then one line per child of `records`, LF after each (after the last only when the
// file had it). A record keeps its exact text from the file while that text still reads back as the
// record's key and value; otherwise it is written as the engine's writer of the version writes
// it. Views (decoded MMO fields) are never looked at.
#include "codec.hpp"
#include "rules.hpp"
#include "spec.hpp"

#include "api.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

SPARKSAVE_BEGIN_NAMESPACE
namespace spark_kv {

namespace {

class Writer {
  public:
    explicit Writer(const Document& doc) : doc_(doc), version_(doc.version()) {
        out_.reserve(doc.source_bytes().size() + 64);
    }

    Result<std::string> run() {
        if (version_ != k_version_legacy && version_ != k_version_v2)
            return fail({}, fmt::format("expected version {} (legacy) or {} (v2), found {}",
                                        k_version_legacy, k_version_v2, version_));
        bool any_line = false;
        if (version_ == k_version_v2) {
            out_ += k_marker;
            any_line = true;
        }
        bool last_empty = false;
        std::uint64_t index = 0;
        const NodeId records = doc_.child(doc_.root(), k_records);
        if (records != k_no_node) {
            for (NodeId c : doc_.children(records)) {
                if (any_line) out_ += '\n';
                const std::size_t start = out_.size();
                if (auto r = line(c, index++, !any_line); !r) return r.error();
                any_line = true;
                last_empty = out_.size() == start;
            }
        }
        if (doc_.node(doc_.root()).flags & k_flag_no_final_newline) {
            // Without its LF, an empty last line would be no line at all.
            if (index > 0 && last_empty)
                return fail(index_path(index - 1), std::string(k_empty_last_line));
        } else if (any_line) {
            out_ += '\n';
        }
        return std::move(out_);
    }

  private:
    Result<void> line(NodeId node, std::uint64_t index, bool first) {
        const Node& n = doc_.node(node);
        if (n.flags & k_flag_no_tab) {
            const NodeId text_node = doc_.child(node, k_text);
            const std::string_view text =
                text_node == k_no_node ? std::string_view{} : doc_.value(text_node);
            if (std::string misfit = no_tab_misfit(text, first); !misfit.empty())
                return fail(index_path(index), std::move(misfit));
            out_ += text;
            return {};
        }
        if (n.kind != NodeKind::scalar)
            return fail(index_path(index), "expected a record (a scalar) or a line without a TAB");
        const std::string_view key = doc_.name(node);
        const std::string_view value = doc_.value(node);
        // The file's own text, while it still says the same (byte-exact round trip).
        const std::string_view source = doc_.source_bytes();
        if (n.span.valid() && std::uint64_t{n.span.offset} + n.span.length <= source.size()) {
            const std::string_view raw = source.substr(n.span.offset, n.span.length);
            if (line_says(raw, key, value, version_)) {
                out_ += raw;
                return {};
            }
        }
        if (version_ != k_version_v2) {
            if (const std::string_view misfit = legacy_misfit(key, value); !misfit.empty())
                return fail(record_path(key),
                            fmt::format("expected a key and value a legacy store can hold (it has "
                                        "no escaping), found {}; migrate to v2 first",
                                        misfit));
        }
        append_line(out_, key, value, version_);
        return {};
    }

    static Error fail(std::string path, std::string message) {
        return make_error(ErrorCode::bad_value, std::move(message), k_no_offset, std::move(path));
    }

    const Document& doc_;
    const std::uint32_t version_;
    std::string out_;
};

} // namespace

Result<std::string> write(const Document& doc) {
    return Writer(doc).run();
}

} // namespace spark_kv
SPARKSAVE_END_NAMESPACE
