// The whole-file dump written straight from the reader's events (FormatJson::dump,
// formats/spark_save/dump.cpp) is byte for byte the dump of the part-by-part printers it
// replaces in `sparksave dump` (TextParts with its two first lines, json_parts, over
// FormatInfo::stream): over the corpus, random saves with every corner of the format, every cut
// of a file (a read that stops anywhere in an entity) and strings that need each escape.
#include <doctest/doctest.h>

#include "support.hpp"

#include "sparksave/crc32.hpp"
#include "sparksave/format.hpp"
#include "sparksave/print.hpp"

#include <random>
#include <string>

using namespace sparksave;

namespace {

// What `sparksave dump` printed before the direct dump: the parts printers over stream().
class Heading final : public Parts {
  public:
    Heading(const FormatInfo& format, std::string& out)
        : format_(format), out_(out), parts_(PrintOptions{}, out) {}
    Result<void> head(Document& doc, std::uint64_t items) override {
        append_text_heading(out_, format_.name, doc.version());
        return parts_.head(doc, items);
    }
    Result<void> item(Document& doc, NodeId item, std::uint64_t index) override {
        return parts_.item(doc, item, index);
    }
    Result<void> tail(Document& doc) override { return parts_.tail(doc); }

  private:
    const FormatInfo& format_;
    std::string& out_;
    TextParts parts_;
};

struct Dumps {
    std::string text, json;
    std::string findings;
};

std::string findings_text(const Findings& f) {
    std::string s;
    for (const auto& x : f.items()) s += x.describe() + "\n";
    return s;
}

Dumps by_parts(const FormatInfo& format, const std::shared_ptr<const Source>& source) {
    Dumps d;
    Heading text(format, d.text);
    PartsRead read = format.stream(source, text);
    REQUIRE_FALSE(read.consumer_error);
    d.findings = findings_text(read.findings);
    auto json = format_json(format.id).json_parts(d.json);
    REQUIRE_FALSE(format.stream(source, *json).consumer_error);
    return d;
}

Dumps direct(const FormatInfo& format, const std::shared_ptr<const Source>& source) {
    Dumps d;
    std::size_t small_blocks = 0;
    for (const bool json : {false, true}) {
        std::string& out = json ? d.json : d.text;
        std::size_t calls = 0;
        PartsRead read = format_json(format.id).dump(source, json, [&](std::string_view block) {
            // Blocks of 1 MiB or more, but the last.
            if (block.size() < (1u << 20)) ++small_blocks;
            ++calls;
            out.append(block);
        });
        CHECK_FALSE(read.consumer_error);
        CHECK(calls >= (out.empty() ? 0u : 1u));
        if (!json) d.findings = findings_text(read.findings);
    }
    CHECK(small_blocks <= 2);
    return d;
}

// Both dumps of `bytes` agree; returns how many bytes of text they made.
std::size_t check_same(const FormatInfo& format, std::string bytes) {
    auto source = std::make_shared<const Source>(std::move(bytes));
    const Dumps a = by_parts(format, source), b = direct(format, source);
    CHECK(b.findings == a.findings);
    CHECK(b.text == a.text);
    CHECK(b.json == a.json);
    return b.text.size();
}

const FormatInfo& spark_save_format() {
    const FormatInfo* f = format_by_name("spark_save");
    REQUIRE(f != nullptr);
    return *f;
}

// A `.spark_save` from its parts (formats/README.md §1.1), for the strings the random saves do
// not make: every escape of both forms.
struct Encoder {
    std::string out;
    void u16(std::size_t v) {
        out += static_cast<char>(v & 0xFF);
        out += static_cast<char>((v >> 8) & 0xFF);
    }
    void u32(std::size_t v) {
        for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
    }
    void str(std::string_view s) {
        u16(s.size());
        out += s;
    }
};

} // namespace

TEST_CASE("the direct dump is the parts printers' dump: corpus and random saves") {
    const FormatInfo& format = spark_save_format();
    REQUIRE(bool(format_json(format.id).dump));
    std::size_t files = 0;
    for (const char* kind : {"valid", "invalid", "tolerated"}) {
        for (const auto& path : test::corpus_files(test::testdata() / format.name, kind, "")) {
            if (path.extension() == ".expect") continue;
            CAPTURE(path.string());
            check_same(format, test::read_bytes(path));
            ++files;
        }
    }
    CHECK(files > 30);
    std::mt19937 rng(26);
    for (int i = 0; i < 400; ++i) {
        const auto version = static_cast<std::uint32_t>(1 + i % 4);
        CAPTURE(i);
        check_same(format, test::random_spark_save(rng, version));
    }
}

// Every cut stops the read at another place: in a name, between a component's type and its
// properties, in a value, between entities, in the custom state; a flipped byte damages a
// length. The part the read stopped in is printed as far as it got, in both forms.
TEST_CASE("the direct dump is the parts printers' dump: every cut and flip of a file") {
    const FormatInfo& format = spark_save_format();
    std::mt19937 rng(2601);
    for (const std::uint32_t version : {1u, 4u}) {
        std::string bytes;
        // A save with several entities and components, a few hundred bytes.
        while (bytes.size() < 200 || bytes.size() > 3000)
            bytes = test::random_spark_save(rng, version);
        CAPTURE(version);
        for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
            CAPTURE(cut);
            check_same(format, bytes.substr(0, cut));
        }
        for (std::size_t at = 0; at < bytes.size(); at += 3) {
            CAPTURE(at);
            std::string flipped = bytes;
            flipped[at] = static_cast<char>(flipped[at] ^ 0x41);
            check_same(format, flipped);
        }
    }
}

TEST_CASE("the direct dump escapes as the printers do: names, keys and values of every kind") {
    const FormatInfo& format = spark_save_format();
    const std::string long_value(3000, 'v'); // beyond the staging buffer's fast pieces
    const std::string strings[] = {"",
                                   "plain",
                                   "has space",
                                   "quote\"inside",
                                   "back\\slash",
                                   "line\nbreak",
                                   "\x1b[31mred",
                                   "caf\xc3\xa9",
                                   "\xe2\x80\xae"
                                   "override",
                                   "bad\xff utf8",
                                   "\x7f",
                                   "sixteen-bytes-ok",
                                   "exactly 32 bytes of plain text!!",
                                   long_value};
    for (const std::uint32_t version : {1u, 4u}) {
        Encoder e;
        e.out = "SPRK";
        e.u32(version);
        std::string meta = "Name\nScene\nClass\n";
        if (version >= 2) meta += "shot.png\n";
        meta += "1700000000\n42.5\n75\n25\n1 2 3\n4\n1\n";
        e.u32(meta.size());
        e.out += meta;
        const std::size_t n = std::size(strings);
        e.u32(n + 2);
        for (std::size_t i = 0; i < n; ++i) {
            e.str(strings[i]); // the entity's name
            e.u16(2);
            e.str(strings[(i + 1) % n]); // a component type
            e.u16(n);
            for (std::size_t k = 0; k < n; ++k) {
                e.str(strings[(i + k) % n] + std::to_string(k)); // distinct keys
                e.str(strings[(i + 2 * k) % n]);
            }
            e.str("Empty"); // a component without properties
            e.u16(0);
        }
        e.str("no components");
        e.u16(0);
        // The last entity's last value ends the file (v1: no custom-state count): the fast path
        // must not read past the file to copy it.
        e.str("last");
        e.u16(1);
        e.str("Tail");
        e.u16(1);
        e.str("k");
        e.str("end");
        if (version == 4) {
            e.u32(0);
            e.u32(crc32(e.out));
        }
        CAPTURE(version);
        CHECK(check_same(format, e.out) > 10000);
    }
}
