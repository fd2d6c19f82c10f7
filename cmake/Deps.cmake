# External libraries, found through pkg-config (Debian: libelf-dev libdw-dev
# libzstd-dev libcmocka-dev).
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)
if(KILN_TESTS)
	pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
endif()
