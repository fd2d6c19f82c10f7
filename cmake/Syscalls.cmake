# Generates OUT: one `{ NR, "name" },` row per system call of the build
# machine's architecture, from the __NR_* macros of <asm/unistd.h> as the
# C compiler sees them (kiln trace names raw_syscalls events by number).
execute_process(COMMAND ${CC} -E -dM -include asm/unistd.h -x c /dev/null
	OUTPUT_VARIABLE defs RESULT_VARIABLE rc ERROR_QUIET)
set(rows "")
if(rc EQUAL 0)
	string(REGEX MATCHALL "#define __NR_[a-z0-9_]+ [0-9]+" lines "${defs}")
	list(SORT lines)
	foreach(l ${lines})
		string(REGEX REPLACE "#define __NR_([a-z0-9_]+) ([0-9]+)" "{ \\2, \"\\1\" }," row "${l}")
		string(APPEND rows "${row}\n")
	endforeach()
endif()
file(WRITE ${OUT}.new "/* Generated from <asm/unistd.h> by cmake/Syscalls.cmake. */\n${rows}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.new ${OUT})
