// SPARKSAVE_API marks the library's API: the declarations a shared build of the library
// (BUILD_SHARED_LIBS=ON, README "Packaging") exports. Everything else is compiled with hidden
// visibility and stays inside the library. The API is sparksave/save_file.hpp and what it needs,
// sparksave/error.hpp; a shared build installs only these headers.
//
// SPARKSAVE_SHARED: the library is shared (the sparksave::sparksave target and sparksave.pc set
// it for their users). SPARKSAVE_BUILDING: the library's own sources are being compiled.
#pragma once

#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(SPARKSAVE_SHARED) && defined(SPARKSAVE_BUILDING)
#define SPARKSAVE_API __declspec(dllexport)
#elif defined(SPARKSAVE_SHARED)
#define SPARKSAVE_API __declspec(dllimport)
#else
#define SPARKSAVE_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define SPARKSAVE_API __attribute__((visibility("default")))
#else
#define SPARKSAVE_API
#endif
