// The start every reader-driven summarize() shares (FormatInfo::summarize: `info` and `verify`,
// no tree): the summary's format and size, one run of the format's Reader with its summary
// sink, and the sink's counts, metadata and types (its finish(Summary&)). What each format then
// reads off its reader (version, checksum, the engine's verdict) is its own: `then` gets the
// reader, what its run() returned and the summary.
#pragma once

#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <string_view>
#include <utility>

SPARKSAVE_BEGIN_NAMESPACE

template <template <class> class Reader, class Sink, class Then, class... ReaderArgs>
Summary summarize_with(FormatId format, std::string_view bytes, Then&& then, ReaderArgs&&... args) {
    Summary s;
    s.format = format;
    s.size = bytes.size();
    Sink sink;
    Reader<Sink> reader(bytes, s.findings, sink, std::forward<ReaderArgs>(args)...);
    const auto ran = reader.run();
    sink.finish(s);
    then(reader, ran, s);
    return s;
}

SPARKSAVE_END_NAMESPACE
