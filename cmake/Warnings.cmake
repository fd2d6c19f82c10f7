# Warnings follow git and Lua; KILN_WERROR (on in CI) makes them fatal.
set(KILN_WARNINGS -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
    -Wwrite-strings -Wformat=2 -Wno-format-nonliteral -Wundef -Wpointer-arith)
# C only: the C++ test programs get the defaults.
add_compile_options("$<$<COMPILE_LANGUAGE:C>:${KILN_WARNINGS}>")
if(KILN_WERROR)
	add_compile_options(-Werror)
endif()
if(KILN_SANITIZE)
	add_compile_options(-fsanitize=${KILN_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
	add_link_options(-fsanitize=${KILN_SANITIZE})
endif()
