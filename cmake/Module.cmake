# kiln_module(NAME DIR DEPS...): a static library kiln_NAME from DIR/*.c
# (minus *_test.c), linked PUBLIC to DEPS, plus one CTest unit test
# unit_<file> for each DIR/*_test.c, linked only to this module and its
# allowed dependencies, so an upward call fails to link.
function(kiln_module name dir)
	file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${dir}/*.c)
	list(FILTER srcs EXCLUDE REGEX "_test\\.c$")
	if(srcs)
		add_library(kiln_${name} STATIC ${srcs})
		target_include_directories(kiln_${name} PUBLIC ${CMAKE_SOURCE_DIR}/src)
		target_link_libraries(kiln_${name} PUBLIC ${ARGN})
	else() # a module with headers only (or not yet written)
		add_library(kiln_${name} INTERFACE)
		target_include_directories(kiln_${name} INTERFACE ${CMAKE_SOURCE_DIR}/src)
		target_link_libraries(kiln_${name} INTERFACE ${ARGN})
	endif()
	if(KILN_TESTS)
		file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${dir}/*_test.c)
		foreach(t ${tests})
			get_filename_component(tn ${t} NAME_WE)
			string(REGEX REPLACE "_test$" "" tn ${tn})
			add_executable(unit_${tn} ${t})
			target_link_libraries(unit_${tn} PRIVATE kiln_${name} PkgConfig::CMOCKA)
			set_target_properties(unit_${tn} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
				${CMAKE_BINARY_DIR}/tests/unit)
			add_test(NAME unit_${tn} COMMAND unit_${tn})
			set_tests_properties(unit_${tn} PROPERTIES ENVIRONMENT
				"KILN_SRC=${CMAKE_SOURCE_DIR};KILN_SHARED=${CMAKE_SOURCE_DIR}/../shared;KILN_CACHE_DIR=${CMAKE_BINARY_DIR}/kiln-cache")
		endforeach()
	endif()
endfunction()
