// Timings of the engine-facing API (sparksave/save_file.hpp, issue 14), for bench/run.py. Each
// mode prints one line `seconds bytes cpu_seconds peak_rss_bytes` (the best of REPEAT runs, hot
// page cache: wall-clock, then the process's CPU time, which moves less on a shared machine;
// then the process's peak resident memory, its inputs included):
//
//   api_bench metadata DIR [REPEAT]   read_metadata(path) of every file in DIR
//   api_bench head DIR [REPEAT]       the baseline: open each file, read its first 4 KiB, close
//   api_bench parse FILE [REPEAT]     SaveView::parse of FILE (read into memory first, not timed)
//   api_bench writer ENTITIES [REPEAT] SaveWriter: ENTITIES entities of 4 components, finish()
//   api_bench rules-parse STEPS [REPEAT] RuleSet::parse of a rule file of STEPS steps (bytes:
//                                    the file's size)
//   api_bench rules FILE RULES [REPEAT] RuleSet::apply of the rule file RULES to the save FILE
//                                    (both read into memory first, the rules loaded, not timed)
//
// Uses only the installed headers sparksave/save_file.hpp and sparksave/content_rules.hpp.
#include "sparksave/content_rules.hpp"
#include "sparksave/save_file.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace ss = sparksave::spark_save;
namespace fs = std::filesystem;

namespace {

double cpu_now() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double best_cpu = 1e30;

template <class F> double best(int repeat, F&& f) {
    double best_s = 1e30;
    for (int i = 0; i < repeat; ++i) {
        const double c0 = cpu_now();
        const auto t0 = std::chrono::steady_clock::now();
        f();
        const std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
        best_s = std::min(best_s, d.count());
        best_cpu = std::min(best_cpu, cpu_now() - c0);
    }
    return best_s;
}

std::vector<fs::path> files_of(const char* dir) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file()) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::string read_file(const char* path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A rule file of `steps` steps, each op in turn, over components C0, C1, ... (every op's
// members, so that parsing is what is timed, not an error).
std::string rule_text(std::size_t steps) {
    std::string t = "id = \"bench-parse\"\nsummary = \"a long rule\"\nformat = \"spark_save\"\n"
                    "module = { key = \"bench.version\", from = 1, to = 2 }\n";
    for (std::size_t i = 0; i < steps; ++i) {
        const std::string c = "\"C" + std::to_string(i) + "\"";
        t += "\n[[step]]\n";
        switch (i % 6) {
        case 0:
            t += "op = \"rename-component\"\nfrom = " + c + "\nto = \"D" + std::to_string(i) +
                 "\"\n";
            break;
        case 1:
            t += "op = \"rename-property\"\ncomponent = " + c + "\nfrom = \"a\"\nto = \"b\"\n";
            break;
        case 2:
            t += "op = \"set-default\"\ncomponent = " + c + "\nproperty = \"p\"\nvalue = \"0\"\n";
            break;
        case 3:
            t += "op = \"retype\"\ncomponent = " + c + "\nproperty = \"p\"\nto = \"float\"\n";
            break;
        case 4:
            t += "op = \"map-values\"\ncomponent = " + c +
                 "\nproperty = \"team\"\nmap = { red = \"1\", blue = \"2\" }\nstrict = true\n";
            break;
        default:
            t += "op = \"drop-property\"\ncomponent = " + c +
                 "\nproperty = \"old\"\nreason = \"unused since 2.0\"\n";
            break;
        }
    }
    return t;
}

int fail(const char* what) {
    std::fprintf(stderr, "api_bench: %s\n", what);
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3)
        return fail(
            "usage: api_bench metadata|head DIR | parse FILE | writer ENTITIES | rules-parse "
            "STEPS | rules FILE RULES [REPEAT]");
    const std::string mode = argv[1];
    const int repeat_arg = mode == "rules" ? 4 : 3;
    if (mode == "rules" && argc < 4) return fail("usage: api_bench rules FILE RULES [REPEAT]");
    const int repeat = argc > repeat_arg ? std::max(1, std::atoi(argv[repeat_arg])) : 3;
    std::uint64_t bytes = 0;
    double seconds = 0;
    bool ok = true;
    if (mode == "metadata" || mode == "head") {
        const auto files = files_of(argv[2]);
        seconds = best(repeat, [&] {
            bytes = 0;
            for (const auto& f : files) {
                if (mode == "metadata") {
                    auto m = ss::read_metadata(f);
                    if (!m) {
                        std::fprintf(stderr, "%s: %s\n", f.c_str(), m.error().describe().c_str());
                        ok = false;
                    } else {
                        bytes += m->save_name.size();
                    }
                } else {
                    std::ifstream in(f, std::ios::binary);
                    char buf[4096];
                    in.read(buf, sizeof buf);
                    bytes += static_cast<std::uint64_t>(in.gcount());
                }
            }
        });
        bytes = files.size();
    } else if (mode == "parse") {
        const std::string data = read_file(argv[2]);
        seconds = best(repeat, [&] {
            auto v = ss::SaveView::parse(ss::as_save_bytes(data));
            if (!v) {
                std::fprintf(stderr, "%s\n", v.error().describe().c_str());
                ok = false;
            }
        });
        bytes = data.size();
    } else if (mode == "writer") {
        const std::size_t entities = std::strtoull(argv[2], nullptr, 10);
        ss::Metadata meta;
        meta.save_name = "bench";
        meta.scene_name = "Arena";
        meta.player_class = "Scout";
        meta.timestamp = 1700000000;
        meta.play_time = 3725.5f;
        // The caller's strings are made before the clock starts: only the writer is timed.
        std::vector<std::string> names, numbers;
        for (std::size_t e = 0; e < entities; ++e) names.push_back("Entity_" + std::to_string(e));
        char num[32];
        for (int i = 0; i < 1000; ++i) {
            std::snprintf(num, sizeof num, "%.6f", i * 0.5);
            numbers.emplace_back(num);
        }
        seconds = best(repeat, [&] {
            ss::SaveWriter w(meta);
            for (std::size_t e = 0; e < entities; ++e) {
                w.entity(names[e]);
                w.component("Transform");
                std::size_t k = e;
                for (const char* key : {"px", "py", "pz", "rx", "ry", "rz", "sx", "sy", "sz"})
                    w.property(key, numbers[k++ % numbers.size()]);
                w.property("parent", e == 0 ? "-1" : "0");
                w.component("HealthComponent").property("hp", "100").property("max", "100");
                w.component("TagComponent").property("tags", "enemy,spawned");
                w.component("Inventory").property("slots", "12").property("gold", "340");
            }
            w.custom("fps.profile.version", "1");
            auto r = w.finish();
            if (!r) {
                std::fprintf(stderr, "%s\n", r.error().describe().c_str());
                ok = false;
            } else {
                bytes = r->size();
            }
        });
    } else if (mode == "rules-parse") {
        const sparksave::RuleText file{
            "bench.toml", rule_text(std::strtoull(argv[2], nullptr, 10)), {}};
        seconds = best(repeat, [&] {
            auto set = sparksave::RuleSet::parse({&file, 1});
            if (!set) {
                std::fprintf(stderr, "%s\n", set.error().describe().c_str());
                ok = false;
            }
        });
        bytes = file.text.size();
    } else if (mode == "rules") {
        const std::string data = read_file(argv[2]);
        const fs::path rules = argv[3];
        auto set = sparksave::RuleSet::load({&rules, 1});
        if (!set) return fail(set.error().describe().c_str());
        seconds = best(repeat, [&] {
            auto r = set->apply(ss::as_save_bytes(data));
            if (!r || !r->changed) {
                std::fprintf(stderr, "%s\n",
                             r ? "the rules changed nothing" : r.error().describe().c_str());
                ok = false;
            }
        });
        bytes = data.size();
    } else {
        return fail("unknown mode");
    }
    if (!ok) return 1;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("%.6f %llu %.6f %lld\n", seconds, static_cast<unsigned long long>(bytes), best_cpu,
                static_cast<long long>(usage.ru_maxrss) * 1024);
    return 0;
}
