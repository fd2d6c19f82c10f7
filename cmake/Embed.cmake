# Embed a file's bytes in C: run as
#   cmake -DIN=file -DOUT=file.c -DNAME=symbol -DHEADER=dir/header.h -P Embed.cmake
# Writes OUT defining 'const unsigned char NAME[]' (the bytes, no NUL
# added) and 'const size_t NAME_len', as HEADER declares them. Pure CMake,
# so building needs no xxd. A file meant for an SVG's CDATA section must
# not hold "]]>": refused.
file(READ "${IN}" text)
string(FIND "${text}" "]]>" cdata_end)
if(NOT cdata_end EQUAL -1)
	message(FATAL_ERROR "${IN}: \"]]>\" would end the SVG's CDATA section")
endif()
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR len "${digits} / 2")
# 16 bytes a line, then each byte as 0xNN,
string(REPEAT "[0-9a-f]" 32 line)
string(REGEX REPLACE "(${line})" "\\1\n\t" hex "${hex}")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
get_filename_component(base "${IN}" NAME)
file(WRITE "${OUT}.tmp"
	"/* Generated from ${base} by cmake/Embed.cmake; do not edit. */\n"
	"#include \"${HEADER}\"\n\n"
	"const unsigned char ${NAME}[] = {\n\t${bytes}\n};\n"
	"const size_t ${NAME}_len = ${len};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
