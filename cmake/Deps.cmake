# External libraries, found through pkg-config (Debian: libelf-dev libdw-dev
# libzstd-dev zlib1g-dev libcmocka-dev).
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)
# zlib (zlib1g-dev) and liblzma (liblzma-dev): compressed debug sections
# and MiniDebugInfo in dso/.
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
pkg_check_modules(LZMA REQUIRED IMPORTED_TARGET liblzma)
# libdeflate (libdeflate-dev): whole-buffer zlib decompression of debug
# sections, about twice zlib's speed (dso/elf_expand.c).
pkg_check_modules(DEFLATE REQUIRED IMPORTED_TARGET libdeflate)
# Capstone (libcapstone-dev, 4.x): in-process disassembly for annotate/.
pkg_check_modules(CAPSTONE REQUIRED IMPORTED_TARGET capstone)
# ncursesw (libncurses-dev): the terminal browser, tui/ (linked by it alone).
pkg_check_modules(NCURSESW REQUIRED IMPORTED_TARGET ncursesw)
if(KILN_TESTS)
	pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
endif()

# libiberty (Debian libiberty-dev): the demangler perf itself uses, so C++
# and Rust names read exactly as in perf's output. A static library with
# its headers under include/libiberty.
find_path(IBERTY_INCLUDE_DIR demangle.h PATH_SUFFIXES libiberty REQUIRED)
find_library(IBERTY_LIBRARY iberty REQUIRED)
