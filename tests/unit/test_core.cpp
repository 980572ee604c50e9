// Unit tests of the format-neutral core: byte reader/writer, CRC-32, escaping, node paths,
// the Document tree, base64, file I/O.
#include <doctest/doctest.h>

#include "sparksave/alongside.hpp"
#include "sparksave/bytes.hpp"
#include "sparksave/crc32.hpp"
#include "sparksave/document.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/input.hpp"
#include "sparksave/json_out.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/output.hpp"
#include "support.hpp"
#include "text_util.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#ifdef _WIN32
#include "file_io_os.hpp"
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

using namespace sparksave;
namespace fs = std::filesystem;

TEST_CASE("read_with_crc: one read, or a parse alongside the CRC and one re-read knowing it") {
    using sparksave::CrcHint;
    std::vector<std::string> calls;
    auto log = [&](const CrcHint& h) {
        calls.push_back(h.known ? "known " + std::to_string(*h.known)
                                : (h.await ? "await " + std::to_string(h.await()) : "none"));
    };
    int crcs = 0;
    auto crc = [&] {
        ++crcs;
        return std::uint32_t{7};
    };
    SUBCASE("a small file: read once, told nothing, the CRC left to the read") {
        sparksave::read_with_crc(false, crc, [&](const CrcHint& h) {
            log(h);
            return true;
        });
        CHECK(calls == std::vector<std::string>{"none"});
        CHECK(crcs == 0);
    }
    SUBCASE("a large file whose CRC holds: one read, the CRC computed once alongside") {
        sparksave::read_with_crc(true, crc, [&](const CrcHint& h) {
            log(h);
            return true;
        });
        CHECK(calls == std::vector<std::string>{"await 7"});
        CHECK(crcs == 1);
    }
    SUBCASE("a large file whose CRC does not: read again, once, knowing it") {
        sparksave::read_with_crc(true, crc, [&](const CrcHint& h) {
            log(h);
            return h.known.has_value();
        });
        CHECK(calls == std::vector<std::string>{"await 7", "known 7"});
        CHECK(crcs == 1);
    }
    SUBCASE("a read that never waits for the CRC still has it joined and re-reads with it") {
        sparksave::read_with_crc(true, crc, [&](const CrcHint& h) {
            calls.push_back(h.known ? "known" : "first");
            return h.known.has_value();
        });
        CHECK(calls == std::vector<std::string>{"first", "known"});
        CHECK(crcs == 1);
    }
}

TEST_CASE("alongside runs both functions, the second on another thread") {
    const auto here_id = std::this_thread::get_id();
    std::thread::id there_id;
    bool here = false;
    sparksave::alongside([&] { here = true; }, [&] { there_id = std::this_thread::get_id(); });
    CHECK(here);
    CHECK(there_id != std::thread::id{});
    CHECK(there_id != here_id);
}

TEST_CASE("byte reader reads little-endian and keeps its first error") {
    const std::string data("\x01\x02\x03\x04\x05\x06\x07", 7);
    ByteReader r(as_bytes(data));
    CHECK(r.u16() == 0x0201);
    CHECK(r.u32() == 0x06050403);
    CHECK(r.ok());
    CHECK(r.remaining() == 1);
    CHECK(r.u16() == 0); // one byte left: fails
    CHECK_FALSE(r.ok());
    CHECK(r.failed_at() == 6);
    CHECK(r.wanted() == 2);
    CHECK(r.u8() == 0); // sticky: later reads fail too, the first failure is kept
    CHECK(r.failed_at() == 6);
    CHECK(r.bytes(0).empty());
}

TEST_CASE("byte reader refuses a huge length without reading past the end") {
    const std::string data("\xff\xff", 2);
    ByteReader r(as_bytes(data));
    auto n = r.u16();
    CHECK(r.bytes(n).empty());
    CHECK_FALSE(r.ok());
    CHECK(r.failed_at() == 2);
    CHECK(r.wanted() == 0xFFFF);
}

TEST_CASE("byte writer writes little-endian and patches") {
    ByteWriter w;
    w.u16(0x0102);
    w.u32(0x03040506);
    w.u64(0x0708090A0B0C0D0Eull);
    w.patch_u32(2, 0xAABBCCDD);
    const std::string expected("\x02\x01\xdd\xcc\xbb\xaa\x0e\x0d\x0c\x0b\x0a\x09\x08\x07", 14);
    CHECK(w.view() == expected);
}

namespace {
std::uint32_t bitwise_crc32(std::string_view s) {
    std::uint32_t c = 0xFFFFFFFF;
    for (unsigned char b : s) {
        c ^= b;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    }
    return ~c;
}
} // namespace

TEST_CASE("crc32 matches the check value and a bitwise reference") {
    CHECK(crc32("123456789") == 0xCBF43926u);
    CHECK(crc32("") == 0u);
    std::mt19937 rng(7);
    for (std::size_t len : {1u, 7u, 8u, 9u, 63u, 64u, 65u, 1000u, 4099u}) {
        std::string s(len, '\0');
        for (auto& c : s) c = static_cast<char>(rng());
        CHECK(crc32(s) == bitwise_crc32(s));
        // Incremental use agrees with one pass, at every split point class.
        std::size_t cut = len / 3;
        CHECK(crc32_update(crc32(s.substr(0, cut)), std::string_view(s).substr(cut)) == crc32(s));
    }
}

TEST_CASE("display escaping keeps the terminal safe and reverses") {
    CHECK(display("plain") == "plain");
    CHECK(display("a\"b", true) == "\"a\\\"b\"");
    CHECK(display("\x1b[31mred") == "\\x1b[31mred");
    CHECK(display("tab\tnl\ncr\r") == "tab\\tnl\\ncr\\r");
    CHECK(display(std::string("\xff\xfe", 2)) == "\\xff\\xfe");
    CHECK(display("back\\slash") == "back\\\\slash");
    CHECK(display("caf\xc3\xa9") == "caf\xc3\xa9"); // valid UTF-8 stays
    CHECK(display("\xe2\x80\xae"
                  "evil") == "\\u{202e}evil");  // right-to-left override
    CHECK(display("\xc2\x9b") == "\\u{9b}");    // C1 CSI
    CHECK(display("\xc0\xaf") == "\\xc0\\xaf"); // overlong '/'
    const std::string samples[] = {"", "x", "\x1b\x00\x7f\xff", "caf\xc3\xa9 \xe2\x80\xae",
                                   "\\x41"};
    for (const auto& s : samples) {
        std::string back;
        REQUIRE(parse_escaped(display(s), back));
        CHECK(back == s);
    }
    std::string bad;
    CHECK_FALSE(parse_escaped("\\q", bad));
    CHECK_FALSE(parse_escaped("\\x4", bad));
    CHECK_FALSE(parse_escaped("\\u{110000}", bad));
}

TEST_CASE("utf-8 validation") {
    CHECK(is_valid_utf8("hello world, a long ascii run to cross the 8-byte fast path"));
    CHECK(is_valid_utf8("\xf0\x9f\x98\x80"));
    CHECK_FALSE(is_valid_utf8("\xed\xa0\x80"));     // surrogate
    CHECK_FALSE(is_valid_utf8("\xf4\x90\x80\x80")); // above U+10FFFF
    CHECK_FALSE(is_valid_utf8("abc\xe2\x82"));      // cut short
}

TEST_CASE("json strings escape controls and stay valid") {
    std::string out;
    append_json_string(out, "a\"\\\n\x01\x1b\xc2\x9b");
    CHECK(out == "\"a\\\"\\\\\\n\\u0001\\u001b\\u009b\"");
    out.clear();
    append_json_bytes(out, std::string("\xff", 1));
    CHECK(out == "{\"base64\": \"/w==\"}");
}

TEST_CASE("base64 round trip and rejection") {
    for (std::string s : {std::string(), std::string("f"), std::string("fo"), std::string("foo"),
                          std::string("\0\xff\x10", 3)}) {
        std::string back;
        REQUIRE(base64_decode(base64_encode(s), back));
        CHECK(back == s);
    }
    std::string out;
    CHECK(base64_encode("foobar") == "Zm9vYmFy");
    CHECK_FALSE(base64_decode("Zm9", out));
    CHECK_FALSE(base64_decode("Zm=v", out));
    CHECK_FALSE(base64_decode("Z!9v", out));
}

TEST_CASE("node paths print and parse") {
    NodePath p;
    p.name("entities").index(3).name("Transform").name("px");
    CHECK(p.str() == "entities[3].Transform.px");
    NodePath q;
    q.name("customState").name("quest.main.stage");
    CHECK(q.str() == "customState[\"quest.main.stage\"]");
    NodePath r;
    r.name("entities").name_match("legacy-player");
    CHECK(r.str() == "entities[name=legacy-player]");
    for (const NodePath* path : {&p, &q, &r}) {
        auto parsed = NodePath::parse(path->str());
        REQUIRE(parsed);
        CHECK(*parsed == *path);
    }
    NodePath odd;
    odd.name("").name("a\"b\n\xff").name_match("x y");
    auto parsed = NodePath::parse(odd.str());
    REQUIRE(parsed);
    CHECK(*parsed == odd);
    CHECK(odd.str() == "[\"\"][\"a\\\"b\\n\\xff\"][name=\"x y\"]");
}

TEST_CASE("node path parse errors say where") {
    for (const char* bad : {"", ".a", "a..b", "a[", "a[x]", "a[\"unterminated]", "a b", "a[1"}) {
        auto parsed = NodePath::parse(bad);
        CHECK_FALSE(parsed);
        if (!parsed) CHECK(parsed.error().message.find("bad node path") != std::string::npos);
    }
}

TEST_CASE("node path patterns") {
    auto pat = [](const char* s) { return *NodePath::parse(s); };
    auto path = pat("entities[3].Transform.px");
    CHECK(path_matches(pat("entities[3].Transform.px"), path));
    CHECK(path_matches(pat("entities.*.Transform.px"), path));
    CHECK(path_matches(pat("entities[*].Transform.*"), path));
    CHECK(path_matches(pat("**.px"), path));
    CHECK(path_matches(pat("entities.**"), path));
    CHECK(path_matches(pat("**"), path));
    CHECK_FALSE(path_matches(pat("entities.*.px"), path));
    CHECK_FALSE(path_matches(pat("customState.**"), path));
    CHECK(path_matches(pat("entities[name=a].T"), pat("entities.a.T")));
}

TEST_CASE("document tree: build, find, resolve, path_of") {
    auto src = std::make_shared<const Source>(std::string("alphabeta"));
    Document doc(FormatId::spark_save, 4, src);
    TreeBuilder b(doc);
    NodeId list = b.open(NodeKind::list, doc.text("entities"));
    NodeId e0 = b.open(NodeKind::object, doc.ref(src->view().substr(0, 5)), Span{0, 5});
    NodeId leaf = b.add(NodeKind::scalar, doc.text("hp"), doc.ref(src->view().substr(5, 4)),
                        Span{5, 4}, ValueType::string);
    b.close();
    NodeId e1 = b.add(NodeKind::object, doc.text("second"));
    b.close();
    CHECK(doc.child_count(list) == 2);
    CHECK(doc.name(e0) == "alpha");
    CHECK(doc.value(leaf) == "beta");
    CHECK(doc.child_at(list, 1) == e1);
    CHECK(*resolve(doc, *NodePath::parse("entities[0].hp")) == leaf);
    CHECK(*resolve(doc, *NodePath::parse("entities[name=second]")) == e1);
    auto missing = resolve(doc, *NodePath::parse("entities[7].hp"));
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message == "no node at entities[7] (looking for entities[7].hp)");
    CHECK(path_of(doc, leaf) == "entities[0].hp");
    // Arena text and appends.
    NodeId added = doc.append(e1, NodeKind::scalar, doc.text("new"), doc.text("value"));
    CHECK(doc.value(added) == "value");
    CHECK(doc.last_child(e1) == added);
    doc.unlink(e1, added);
    CHECK(doc.child_count(e1) == 0);
}

TEST_CASE("document tree: unedited() from mark_read() until anything may have changed it") {
    auto src = std::make_shared<const Source>(std::string("alphabeta"));
    Document doc(FormatId::spark_save, 4, src);
    const Document& read_only = doc;
    CHECK_FALSE(doc.unedited()); // never marked: a tree built, not read
    TreeBuilder b(doc);
    NodeId e = b.open(NodeKind::object, doc.ref(src->view().substr(0, 5)), Span{0, 9});
    NodeId leaf = b.add(NodeKind::scalar, doc.text("hp"), doc.ref(src->view().substr(5, 4)));
    b.close();
    doc.mark_read();
    CHECK(doc.unedited());
    // Reading leaves it so, through every const member.
    CHECK(read_only.node(leaf).span.length == 0);
    CHECK(doc.child(e, "hp") == leaf);
    CHECK(doc.child_count(e) == 1);
    CHECK(doc.value(leaf) == "beta");
    (void)doc.text("an arena text alone changes no node");
    CHECK(doc.unedited());
    // Each way of changing it ends it.
    auto edited = [&](auto change) {
        doc.mark_read();
        change();
        return !doc.unedited();
    };
    CHECK(edited([&] { doc.node(leaf).value = doc.text("1"); }));
    CHECK(edited([&] { doc.append(e, NodeKind::scalar, doc.text("k")); }));
    CHECK(edited([&] { (void)doc.create(NodeKind::scalar, doc.text("k")); }));
    CHECK(edited([&] { doc.unlink(e, leaf); }));
    CHECK(edited([&] { doc.link_last(e, leaf); }));
    CHECK(edited([&] { b.add(NodeKind::scalar, doc.text("k")); }));
    doc.mark_read();
    doc.clear_nodes();
    CHECK_FALSE(doc.unedited()); // the mark went with the nodes
}

TEST_CASE("human-readable times") {
    CHECK(iso8601_utc("1700000000") == "2023-11-14T22:13:20Z");
    CHECK(iso8601_utc("0") == "1970-01-01T00:00:00Z");
    CHECK(iso8601_utc("99999999999999") == "99999999999999");
    CHECK(iso8601_utc("x\x1b") == "x\\x1b");
    CHECK(hours_minutes_seconds("42.5") == "0:00:42");
    CHECK(hours_minutes_seconds("3725.5") == "1:02:05");
    CHECK(hours_minutes_seconds("-1") == "-1");
    CHECK(is_json_number("-12.5e3"));
    CHECK_FALSE(is_json_number("+1"));
    CHECK_FALSE(is_json_number("01"));
    CHECK_FALSE(is_json_number("1."));
}

namespace {
struct TempDir {
    fs::path path;
    TempDir() {
#ifdef _WIN32 // no mkdtemp(): a new directory of a random name
        std::random_device random;
        do path = fs::temp_directory_path() / ("sparksave-test-" + std::to_string(random()));
        while (!fs::create_directory(path));
#else
        std::string t = (fs::temp_directory_path() / "sparksave-test-XXXXXX").string();
        path = ::mkdtemp(t.data());
#endif
    }
    ~TempDir() {
        std::error_code ec;
        fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(path, ec);
    }
    std::size_t entries() const {
        return static_cast<std::size_t>(
            std::distance(fs::directory_iterator(path), fs::directory_iterator()));
    }
};
} // namespace

TEST_CASE("read_file enforces the size limit") {
    TempDir dir;
    std::ofstream(dir.path / "f", std::ios::binary) << "0123456789";
    auto ok = read_file(dir.path / "f", 10);
    REQUIRE(ok);
    CHECK((*ok)->view() == "0123456789");
    auto big = read_file(dir.path / "f", 9);
    REQUIRE_FALSE(big);
    CHECK(big.error().code == ErrorCode::too_large);
    auto missing = read_file(dir.path / "nope", 10);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == ErrorCode::io_error);
#ifdef _WIN32 // the system's own words, in the system's language
    CHECK(missing.error().message.starts_with("cannot open: "));
#else
    CHECK(missing.error().message == "cannot open: No such file or directory");
#endif
}

TEST_CASE("atomic write replaces, keeps the mode, follows links, leaves no temp file") {
    TempDir dir;
    fs::path target = dir.path / "save.bin";
    REQUIRE(write_file_atomic(target, "first"));
#ifdef _WIN32
    // Windows: no POSIX mode to keep (the new file takes its directory's inherited ACL:
    // file_io_win32.cpp apply_kept), and creating a symbolic link needs a privilege a test run
    // does not have.
    REQUIRE(write_file_atomic(target, "second"));
    CHECK(test::read_bytes(target) == "second");
    CHECK(dir.entries() == 1);
#else
    ::chmod(target.c_str(), 0640);
    REQUIRE(write_file_atomic(target, "second"));
    CHECK(test::read_bytes(target) == "second");
    struct stat st {};
    ::stat(target.c_str(), &st);
    CHECK((st.st_mode & 07777) == 0640);
    fs::create_symlink("save.bin", dir.path / "link");
    REQUIRE(write_file_atomic(dir.path / "link", "third"));
    CHECK(fs::is_symlink(dir.path / "link"));
    CHECK(test::read_bytes(target) == "third");
    CHECK(dir.entries() == 2);
#endif
}

TEST_CASE("atomic writes of a batch sync each directory once, at the end") {
    TempDir dir;
    fs::create_directories(dir.path / "sub");
    DirectorySyncs syncs;
    AtomicWriteOptions batch;
    batch.directory_syncs = &syncs;
    REQUIRE(write_file_atomic(dir.path / "a", "1", batch));
    REQUIRE(write_file_atomic(dir.path / "sub" / "b", "2", batch));
    REQUIRE(write_file_atomic(dir.path / "c", "3", batch));
    CHECK(test::read_bytes(dir.path / "sub" / "b") == "2");
    CHECK(syncs.sync());
    CHECK(syncs.sync()); // nothing left to sync
#ifndef _WIN32 // Windows syncs no directory (MOVEFILE_WRITE_THROUGH did): nothing to report
    // A directory that went away is reported.
    REQUIRE(write_file_atomic(dir.path / "sub" / "d", "4", batch));
    fs::remove_all(dir.path / "sub");
    auto gone = syncs.sync();
    REQUIRE_FALSE(gone);
    CHECK(gone.error().code == ErrorCode::io_error);
#endif
}

TEST_CASE("atomic write never clobbers when asked, and fails cleanly") {
    TempDir dir;
    fs::path target = dir.path / "keep";
    REQUIRE(write_file_atomic(target, "original"));
    AtomicWriteOptions no_replace;
    no_replace.replace_existing = false;
    auto r = write_file_atomic(target, "new", no_replace);
    REQUIRE_FALSE(r);
    CHECK(test::read_bytes(target) == "original");
    // A verify hook that refuses: the target stays, no temp file remains.
    AtomicWriteOptions refuse;
    refuse.before_rename = [](std::string_view) -> Result<bool> {
        return make_error(ErrorCode::bad_value, "no");
    };
    CHECK_FALSE(write_file_atomic(target, "new", refuse));
    CHECK(test::read_bytes(target) == "original");
    CHECK(dir.entries() == 1);
#ifndef _WIN32              // Windows: a directory has no write permission bit to take away
    if (::geteuid() != 0) { // root ignores directory permissions
        fs::permissions(dir.path, fs::perms::owner_read | fs::perms::owner_exec);
        CHECK_FALSE(write_file_atomic(target, "new"));
        fs::permissions(dir.path, fs::perms::owner_all);
        CHECK(test::read_bytes(target) == "original");
    }
#endif
}

TEST_CASE("atomic write: a large file is checked beside its fsync, and the check still decides") {
    TempDir dir;
    const fs::path target = dir.path / "big";
    REQUIRE(write_file_atomic(target, "original"));
    std::string big(5u << 20, 'x'); // past the size checked beside (4 MiB)
    for (std::size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>(i >> 12);
    std::string seen;
    AtomicWriteOptions checked;
    checked.check = [&](std::string_view written) -> Result<void> {
        seen = std::string(written);
        return {};
    };
    REQUIRE(write_file_atomic(target, big, checked));
    CHECK(seen == big); // the check saw the bytes read back, all of them
    CHECK(test::read_bytes(target) == big);
    // A refusal stops the write, with the check's own error; nothing is left behind, and
    // before_rename (where a backup would be made) is never called.
    bool renamed = false;
    AtomicWriteOptions refuse;
    refuse.check = [](std::string_view) -> Result<void> {
        return make_error(ErrorCode::checksum_mismatch, "refused by the check");
    };
    refuse.before_rename = [&](std::string_view) -> Result<bool> {
        renamed = true;
        return true;
    };
    for (const std::string& bytes : {std::string(big), std::string("small")}) {
        auto r = write_file_atomic(target, bytes, refuse);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::checksum_mismatch);
        CHECK(r.error().message == "refused by the check");
        CHECK_FALSE(renamed);
        CHECK(test::read_bytes(target) == big);
        CHECK(dir.entries() == 1);
    }
}

// POSIX only: the pipe is named by a /dev/fd path, which Windows has no counterpart of.
#ifndef _WIN32
TEST_CASE("read_input opens once: a pipe is read as a stream, decided on its head, bounded") {
    // The endless writer below meets a closed pipe: an error, not the end of the test program.
    const auto previous = std::signal(SIGPIPE, SIG_IGN);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const std::string save(10000, 'x');
    std::thread writer([&] {
        std::size_t at = 0;
        while (at < save.size()) {
            ssize_t n = ::write(fds[1], save.data() + at, save.size() - at);
            if (n <= 0) break;
            at += static_cast<std::size_t>(n);
        }
        ::close(fds[1]);
    });
    std::string seen_head;
    const fs::path path = "/dev/fd/" + std::to_string(fds[0]);
    auto r = read_input(path, 4096, [&](std::string_view head) -> Result<std::uint64_t> {
        seen_head = std::string(head);
        return 1 << 20;
    });
    writer.join();
    ::close(fds[0]);
    REQUIRE(r);
    CHECK(seen_head.size() == 4096);
    CHECK((*r).source->view() == save); // nothing lost to a second open
    CHECK_FALSE((*r).identity.regular);

    // An endless stream stops at the limit that its head chose.
    REQUIRE(::pipe(fds) == 0);
    std::atomic<bool> stop{false};
    std::thread endless([&] {
        const std::string block(65536, 'y');
        while (!stop && ::write(fds[1], block.data(), block.size()) > 0) {}
        ::close(fds[1]);
    });
    auto big = read_input("/dev/fd/" + std::to_string(fds[0]), 4096,
                          [](std::string_view) -> Result<std::uint64_t> { return 3 << 20; });
    stop = true;
    ::close(fds[0]);
    endless.join();
    REQUIRE_FALSE(big);
    CHECK(big.error().code == ErrorCode::too_large);

    // The head's verdict stops the read at once (no known format: nothing more is read).
    TempDir dir;
    std::ofstream(dir.path / "f", std::ios::binary) << "not a save";
    auto refused = read_input(dir.path / "f", 4096, [](std::string_view) -> Result<std::uint64_t> {
        return make_error(ErrorCode::unknown_format, "no");
    });
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::unknown_format);
    std::signal(SIGPIPE, previous);
}
#endif

TEST_CASE("names a walk never takes: sparksave's temporary files and backups") {
    CHECK(is_temporary_name(".slot1.spark_save.sparksave-Ab12Cd"));
    CHECK(is_temporary_name(".x.sparksave-000000"));
    CHECK_FALSE(is_temporary_name("slot1.spark_save.sparksave-Ab12Cd")); // not hidden
    CHECK_FALSE(is_temporary_name(".slot1.spark_save.sparksave-Ab12C")); // five characters
    CHECK_FALSE(is_temporary_name(".slot1.spark_save.sparksave-Ab12C!"));
    CHECK(is_backup_name("slot1.spark_save.v1.bak"));
    CHECK(is_backup_name("mmo.kv.v12.bak"));
    CHECK(backup_name("a/slot1.spark_save", 3) == "a/slot1.spark_save.v3.bak");
    CHECK_FALSE(is_backup_name("slot1.spark_save.bak")); // the engine's own backup
    CHECK_FALSE(is_backup_name("slot1.spark_save.v.bak"));
    CHECK_FALSE(is_backup_name(".v1.bak"));
}

TEST_CASE("atomic write: the temporary name fits where the target's does") {
    TempDir dir;
    const std::string name(250, 'n');
    REQUIRE(write_file_atomic(dir.path / name, "first"));
    REQUIRE(write_file_atomic(dir.path / name, "second"));
    CHECK(test::read_bytes(dir.path / name) == "second");
    CHECK(dir.entries() == 1);
}

TEST_CASE("paths as text are UTF-8 on every system: arguments, walks, destinations") {
    // Outside every ANSI code page but Japanese, and outside that one too (U+00DC).
    const std::string name = "セーブ Ünïcode.spark_save";
    const fs::path path = path_from_utf8(name);
#ifdef _WIN32
    CHECK(path.native() == L"\u30bb\u30fc\u30d6 \u00dcn\u00efcode.spark_save");
    CHECK(path_to_utf8(path_from_utf8("a\\b/c.kv")) == "a\\b/c.kv");
    CHECK(path_to_utf8(path_from_utf8("a\\b/c.kv"), true) == "a/b/c.kv");
    // Not UTF-8, an unpaired surrogate: U+FFFD, no exception.
    CHECK(path_from_utf8("a\xff.kv").native() == L"a\ufffd.kv");
    CHECK(path_to_utf8(fs::path(std::wstring{L'a', wchar_t(0xD800), L'b'})) == "a\xEF\xBF\xBD"
                                                                               "b");
#else
    CHECK(path.native() == name); // bytes, as they are
    CHECK(path_from_utf8("a\xff.kv").native() == "a\xff.kv");
#endif
    CHECK(path_to_utf8(path) == name);
    CHECK(path_to_utf8(path_from_utf8("")).empty());

    // A file of that name: opened by its UTF-8 name, found by a walk under that name, written
    // and replaced through it.
    TempDir dir;
    const std::string root = path_to_utf8(dir.path, true);
    REQUIRE(fs::create_directory(dir.path / path_from_utf8("フォルダ")));
    const std::string file = root + "/フォルダ/" + name;
    const std::string save =
        test::read_bytes(test::testdata() / "spark_save" / "valid" / "v4-empty.spark_save");
    test::write_bytes(path_from_utf8(file), save);
    auto opened = open_input(file);
    REQUIRE(opened);
    CHECK(opened->path == file);
    CHECK(opened->source->view() == save);
    const InputList list = collect_inputs({root});
    CHECK(list.problems.empty());
    REQUIRE(list.files.size() == 1);
    CHECK(list.files[0].path == file);
    CHECK(list.files[0].root == root);
    REQUIRE(write_file_atomic(path_from_utf8(file), "replaced"));
    CHECK(test::read_bytes(dir.path / path_from_utf8("フォルダ") / path) == "replaced");
    CHECK(std::distance(fs::directory_iterator(dir.path / path_from_utf8("フォルダ")),
                        fs::directory_iterator()) == 1);
}

#ifdef _WIN32
TEST_CASE("Windows: a path too long for MAX_PATH reaches Win32 in the extended-length form") {
    // The form (file_io_win32.cpp win32_path): short paths as they are; a long one absolute,
    // `.` and `..` resolved, `/` made `\`, prefixed `\\?\` (a share's `\\?\UNC\`).
    std::wstring deep = L"C:\\";
    for (int i = 0; i < 30; ++i) deep += L"abcdefghij\\";
    CHECK(os::win32_path(L"C:\\short\\a.kv") == L"C:\\short\\a.kv");
    CHECK(os::win32_path(L"short/a.kv") == L"short/a.kv");
    CHECK(os::win32_path(L"NUL") == L"NUL");
    CHECK(os::win32_path(deep + L"x\\..\\.\\y/z.kv") == L"\\\\?\\" + deep + L"y\\z.kv");
    CHECK(os::win32_path(L"\\\\?\\" + deep + L"a.kv") == L"\\\\?\\" + deep + L"a.kv");
    CHECK(os::win32_path(L"\\\\server\\share\\" + deep.substr(3) + L"a.kv") ==
          L"\\\\?\\UNC\\server\\share\\" + deep.substr(3) + L"a.kv");
    const std::wstring relative = os::win32_path(deep.substr(3) + L"r.kv");
    CHECK(relative.starts_with(L"\\\\?\\"));
    CHECK(relative.ends_with(L"\\" + deep.substr(3) + L"r.kv"));

    // And in use: a directory tree deeper than 260 characters, made with the long form (plain
    // CreateDirectoryW stops at 248 on Windows), written into, replaced, read, and a write that
    // does not complete leaves nothing behind.
    TempDir dir;
    std::wstring at = dir.path.native();
    std::vector<std::wstring> made;
    while (at.size() < 300) {
        at += L"\\directory-of-a-deep-tree";
        REQUIRE(::CreateDirectoryW(os::win32_path(at).c_str(), nullptr));
        made.push_back(at);
    }
    const fs::path target = at + L"\\save.spark_save";
    REQUIRE(target.native().size() > MAX_PATH);
    REQUIRE(write_file_atomic(target, "first"));
    REQUIRE(write_file_atomic(target, "second"));
    auto read = read_file(target, 100);
    REQUIRE(read);
    CHECK((*read)->view() == "second");
    {
        auto unfinished = AtomicFile::create(target, AtomicWriteOptions{});
        REQUIRE(unfinished);
        REQUIRE((*unfinished)->write("third"));
    } // dropped before its commit: its temporary file is removed
    auto entries = [&] {
        WIN32_FIND_DATAW found{};
        HANDLE h = ::FindFirstFileW(os::win32_path(at + L"\\*").c_str(), &found);
        std::vector<std::wstring> names;
        if (h == INVALID_HANDLE_VALUE) return names;
        do {
            if (std::wstring_view(found.cFileName) != L"." &&
                std::wstring_view(found.cFileName) != L"..")
                names.emplace_back(found.cFileName);
        } while (::FindNextFileW(h, &found));
        ::FindClose(h);
        return names;
    };
    CHECK(entries() == std::vector<std::wstring>{L"save.spark_save"});
    CHECK(test::read_bytes(os::win32_path(target)) == "second");
    // Removed here with the long form (a plain remove_all may not reach that deep).
    CHECK(::DeleteFileW(os::win32_path(target).c_str()));
    for (auto it = made.rbegin(); it != made.rend(); ++it)
        CHECK(::RemoveDirectoryW(os::win32_path(*it).c_str()));
}
#endif

// POSIX only: Windows has no FIFO to make (its devices, NUL and CON, are not in a directory).
#ifndef _WIN32
TEST_CASE("atomic write refuses a destination that is not a regular file") {
    TempDir dir;
    const fs::path fifo = dir.path / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto r = write_file_atomic(fifo, "data");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::io_error);
    CHECK(r.error().message.find("not a regular file") != std::string::npos);
    struct stat st {};
    REQUIRE(::lstat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    CHECK(dir.entries() == 1);
}
#endif

TEST_CASE("atomic write in place: never renamed over a file that changed since it was read") {
    TempDir dir;
    const fs::path save = dir.path / "save";
    REQUIRE(write_file_atomic(save, "original"));
    auto read = read_input(save, 0, [](std::string_view) -> Result<std::uint64_t> { return 100; });
    REQUIRE(read);
    AtomicWriteOptions options;
    options.expect_unchanged = read->identity;
    auto file = AtomicFile::create(save, options);
    REQUIRE(file);
    REQUIRE((*file)->write("migrated"));
    std::ofstream(save, std::ios::binary | std::ios::app) << " and the engine's append";
    auto committed = (*file)->commit();
    REQUIRE_FALSE(committed);
    CHECK(committed.error().message.find("changed while it was being migrated") !=
          std::string::npos);
    file->reset();
    CHECK(test::read_bytes(save) == "original and the engine's append");
    CHECK(dir.entries() == 1);
}

TEST_CASE("atomic write: a companion (a backup) goes when its write does not complete") {
    TempDir dir;
    const fs::path save = dir.path / "save";
    REQUIRE(write_file_atomic(save, "original"));
    {
        AtomicWriteOptions refuse;
        refuse.before_rename = [](std::string_view) -> Result<bool> {
            return make_error(ErrorCode::bad_value, "no");
        };
        auto file = AtomicFile::create(save, refuse);
        REQUIRE(file);
        AtomicWriteOptions backup;
        backup.replace_existing = false;
        backup.companion_of = file->get();
        REQUIRE(write_file_atomic(dir.path / "save.v1.bak", "original", backup));
        CHECK(fs::exists(dir.path / "save.v1.bak"));
        REQUIRE((*file)->write("new"));
        CHECK_FALSE((*file)->commit());
    }
    CHECK_FALSE(fs::exists(dir.path / "save.v1.bak")); // removed with the failed write
    CHECK(test::read_bytes(save) == "original");
    {
        auto file = AtomicFile::create(save);
        REQUIRE(file);
        AtomicWriteOptions backup;
        backup.replace_existing = false;
        backup.companion_of = file->get();
        REQUIRE(write_file_atomic(dir.path / "save.v1.bak", "original", backup));
        REQUIRE((*file)->write("new"));
        REQUIRE((*file)->commit());
    }
    CHECK(test::read_bytes(dir.path / "save.v1.bak") == "original"); // kept: the write completed
    CHECK(test::read_bytes(save) == "new");
    CHECK(dir.entries() == 2);
}

namespace {
// The file as read (no format needed here).
Input input_of(const fs::path& path) {
    auto read = read_input(path, 0, [](std::string_view) -> Result<std::uint64_t> { return 100; });
    REQUIRE(read);
    return Input{path_to_utf8(path), std::move(read->source), nullptr, read->identity};
}
OutputOptions to(Destination::Mode mode, const fs::path& path) {
    OutputOptions o;
    o.destination = {mode, path};
    return o;
}
} // namespace

TEST_CASE("write model: where an output goes, and what it may replace") {
    using Mode = Destination::Mode;
    TempDir dir;
    const fs::path out = dir.path / "out";
    // New file: written; the same bytes again: left alone; other bytes: refused as trouble.
    auto w = Output::write(to(Mode::new_file, out), "abc");
    REQUIRE(w);
    CHECK(*w == Committed::written);
    w = Output::write(to(Mode::new_file, out), "abc");
    REQUIRE(w);
    CHECK(*w == Committed::identical);
    w = Output::write(to(Mode::new_file, out), "xyz");
    REQUIRE_FALSE(w);
    CHECK(w.failure().kind == Failure::Kind::trouble);
    CHECK(w.failure().exit_status() == 2);
    CHECK(w.failure().error.message.find("never overwritten") != std::string::npos);
    CHECK(test::read_bytes(out) == "abc");
    // Streamed bytes the same way (the test after the read-back).
    auto streamed = Output::open(to(Mode::new_file, out));
    REQUIRE(streamed);
    REQUIRE((*streamed)->write("x"));
    REQUIRE((*streamed)->write("yz"));
    auto c = (*streamed)->commit();
    REQUIRE_FALSE(c);
    CHECK(c.failure().kind == Failure::Kind::trouble);
    streamed = Output::open(to(Mode::new_file, out));
    REQUIRE(streamed);
    REQUIRE((*streamed)->write("abc"));
    c = (*streamed)->commit();
    REQUIRE(c);
    CHECK(*c == Committed::identical);
    // Replace: a different file is replaced; its folders made only when asked.
    w = Output::write(to(Mode::replace, out), "xyz");
    REQUIRE(w);
    CHECK(test::read_bytes(out) == "xyz");
    CHECK_FALSE(Output::write(to(Mode::replace, dir.path / "a" / "b"), "1"));
    OutputOptions deep = to(Mode::replace, dir.path / "a" / "b");
    deep.destination.make_parents = true;
    CHECK(Output::write(deep, "1"));
    CHECK(test::read_bytes(dir.path / "a" / "b") == "1");
    // A check that refuses the bytes read back: a finding, nothing written.
    OutputOptions checked = to(Mode::replace, out);
    checked.check = [](std::string_view bytes) -> Result<void> {
        if (bytes == "bad") return make_error(ErrorCode::bad_value, "refused");
        return {};
    };
    w = Output::write(checked, "bad");
    REQUIRE_FALSE(w);
    CHECK(w.failure().kind == Failure::Kind::finding);
    CHECK(w.failure().exit_status() == 1);
    CHECK(test::read_bytes(out) == "xyz");
    CHECK(dir.entries() == 2); // out, a/: no temporary file
}

TEST_CASE("write model: in place, the backup and its companion rule") {
    using Mode = Destination::Mode;
    TempDir dir;
    const fs::path save = dir.path / "save";
    const fs::path bak = dir.path / "save.v1.bak";
    REQUIRE(write_file_atomic(save, "original"));
    Input in = input_of(save);
    OutputOptions o = to(Mode::in_place, save);
    o.input = &in;
    o.backup = Backup{bak, Backup::Policy::never_overwrite, in.source->view(), {}};
    // A check that refuses: no backup is made (it is made last, just before the rename).
    o.check = [](std::string_view) -> Result<void> {
        return make_error(ErrorCode::bad_value, "no");
    };
    CHECK_FALSE(Output::write(o, "migrated"));
    CHECK_FALSE(fs::exists(bak));
    o.check = nullptr;
    // The file changed since it was read: refused, and the backup made for it removed again.
    std::ofstream(save, std::ios::binary | std::ios::app) << "+engine";
    auto w = Output::write(o, "migrated");
    REQUIRE_FALSE(w);
    CHECK(w.failure().kind == Failure::Kind::trouble);
    CHECK(w.failure().error.message.find("changed while it was being migrated") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(bak));
    CHECK(test::read_bytes(save) == "original+engine");
    // A backup that holds other bytes is never overwritten: trouble, the file stays.
    Input now = input_of(save);
    o.input = &now;
    o.backup->bytes = now.source->view();
    REQUIRE(write_file_atomic(bak, "something else"));
    w = Output::write(o, "migrated");
    REQUIRE_FALSE(w);
    CHECK(w.failure().kind == Failure::Kind::trouble);
    CHECK(test::read_bytes(save) == "original+engine");
    // One that holds exactly the original (a dead run's) is kept and used.
    REQUIRE(write_file_atomic(bak, "original+engine"));
    REQUIRE(Output::write(o, "migrated"));
    CHECK(test::read_bytes(save) == "migrated");
    CHECK(test::read_bytes(bak) == "original+engine");
    // A copied backup (a large input already let go) holds the file as it was on the disk.
    fs::remove(bak);
    Input again = input_of(save);
    o.input = &again;
    o.backup = Backup{bak, Backup::Policy::never_overwrite, {}, save};
    REQUIRE(Output::write(o, "migrated twice"));
    CHECK(test::read_bytes(bak) == "migrated");
    // The engine's slot backup is replaced by each revision.
    OutputOptions slot = to(Mode::in_place, save);
    slot.backup = Backup{bak, Backup::Policy::replace, "previous", {}};
    REQUIRE(Output::write(slot, "newest"));
    CHECK(test::read_bytes(bak) == "previous");
    CHECK(dir.entries() == 2);
}

TEST_CASE("file lock: one holder at a time, the waiter gets the file the path names then") {
    TempDir dir;
    const fs::path save = dir.path / "save";
    REQUIRE(write_file_atomic(save, "v1"));
    auto first = FileLock::acquire(save);
    REQUIRE(first);
    REQUIRE(first->held());
    const FileIdentity locked = first->identity();
    std::atomic<bool> got{false};
    FileIdentity second_identity;
    std::thread waiter([&] {
        auto second = FileLock::acquire(save); // waits for `first`
        got = true;
        REQUIRE(second);
        CHECK(second->held());
        second_identity = second->identity();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK_FALSE(got.load()); // still waiting
    // The holder replaces the file (a migration's rename), then lets go: the waiter must end up
    // holding the new file, not the one it first opened.
    REQUIRE(write_file_atomic(save, "v4"));
    *first = FileLock();
    waiter.join();
    CHECK(got.load());
    CHECK(second_identity.inode != locked.inode);
    const auto now =
        read_input(save, 0, [](std::string_view) -> Result<std::uint64_t> { return 100; });
    REQUIRE(now);
    CHECK(now->identity.inode == second_identity.inode);
    // Nothing to lock where no regular file is; a missing file is an error.
    auto none = FileLock::acquire(dir.path);
    REQUIRE(none);
    CHECK_FALSE(none->held());
    CHECK_FALSE(FileLock::acquire(dir.path / "missing"));
}

TEST_CASE("a temporary file in use is no leftover; a dead write's is") {
    TempDir dir;
    const fs::path save = dir.path / "save";
    REQUIRE(write_file_atomic(save, "original"));
    auto file = AtomicFile::create(save);
    REQUIRE(file);
    fs::path tmp;
    for (const auto& e : fs::directory_iterator(dir.path))
        if (is_temporary_name(path_to_utf8(e.path().filename()))) tmp = e.path();
    REQUIRE_FALSE(tmp.empty());
    CHECK(temporary_in_use(tmp));
    // A walk does not list another write's temporary file as stale.
    CHECK(collect_inputs({path_to_utf8(dir.path)}).stale_temps.empty());
    // As a killed process leaves it: the same bytes, nobody holding it.
    REQUIRE(write_file_atomic(dir.path / ".save.sparksave-Ab12Cd", "torn"));
    CHECK_FALSE(temporary_in_use(dir.path / ".save.sparksave-Ab12Cd"));
    CHECK(collect_inputs({path_to_utf8(dir.path)}).stale_temps.size() == 1);
    file->reset();
    CHECK(temporary_in_use(tmp)); // removed with its write: gone, so never listed
    CHECK(collect_inputs({path_to_utf8(dir.path)}).stale_temps.size() == 1);
}

// Scripts read the codes from `verify --json`: each keeps its number and its name (append only).
TEST_CASE("error codes are stable: numbers and names") {
    const std::pair<int, std::string_view> k_codes[] = {
        {0, "io_error"},         {1, "too_large"},         {2, "unknown_format"},
        {3, "truncated"},        {4, "bad_magic"},         {5, "unsupported_version"},
        {6, "damaged_version"},  {7, "checksum_mismatch"}, {8, "trailing_bytes"},
        {9, "limit_exceeded"},   {10, "bad_metadata"},     {11, "duplicate_component"},
        {12, "duplicate_key"},   {13, "name_component"},   {14, "bad_parent"},
        {15, "needs_migration"}, {16, "bad_value"},        {17, "bad_json"},
        {18, "bad_usage"},       {19, "internal"},         {20, "dropped_pairs"},
        {21, "bad_syntax"},      {22, "bad_indent"},       {23, "multiline_value"},
        {24, "count_mismatch"},  {25, "name_cut"},         {26, "marker_in_value"},
        {27, "type_alias"},      {28, "unknown_type"},     {29, "bad_escape"},
        {30, "missing_tab"},     {31, "carriage_return"},  {32, "placeholder_token"},
        {33, "record_shape"},    {34, "bad_descriptor"},   {35, "bad_chunk"},
        {36, "size_mismatch"},
    };
    for (const auto& [number, name] : k_codes)
        CHECK(code_name(static_cast<ErrorCode>(number)) == name);
    CHECK(code_name(static_cast<ErrorCode>(std::size(k_codes))) == "unknown");
}
