# `make install` / `cmake --install`: the kiln binary, and the man pages and
# shell completion that the built kiln generates from its option tables
# (kiln --man NAME, kiln --completion SHELL; see cmake/GenDocs.cmake).
include(GNUInstallDirs)
set(KILN_GEN_DIR ${CMAKE_BINARY_DIR}/generated)
add_custom_command(OUTPUT ${KILN_GEN_DIR}/stamp
	COMMAND ${CMAKE_COMMAND} -DKILN=$<TARGET_FILE:kiln> -DOUT=${KILN_GEN_DIR}
		-P ${CMAKE_SOURCE_DIR}/cmake/GenDocs.cmake
	DEPENDS kiln ${CMAKE_SOURCE_DIR}/cmake/GenDocs.cmake
	COMMENT "Generating man pages and shell completion")
add_custom_target(kiln_docs ALL DEPENDS ${KILN_GEN_DIR}/stamp)

install(TARGETS kiln RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${KILN_GEN_DIR}/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${KILN_GEN_DIR}/kiln.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
	RENAME kiln)
install(FILES ${KILN_GEN_DIR}/_kiln DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
