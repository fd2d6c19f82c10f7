# BPF programs, optional: kiln builds without them when clang, bpftool,
# libbpf or the kernel's BTF (/sys/kernel/btf/vmlinux) is missing, and
# says so at configure time. KILN_BPF=OFF turns them off by hand.
#
# kiln_bpf_skeleton(NAME SRC): compile SRC (a *.bpf.c, CO-RE against the
# generated vmlinux.h) with clang -target bpf and generate NAME.skel.h with
# `bpftool gen skeleton` into ${CMAKE_BINARY_DIR}/generated/bpf; it sets
# KILN_BPF_SKEL_<NAME> to the header's path. Only call it when KILN_HAVE_BPF.
# kiln_bpf_skeleton(NAME SRC LIGHT): a light skeleton (`gen skeleton -L`):
# loaded by a loader program in the kernel, which does the CO-RE
# relocations against the kernel's own BTF, so that opening it costs a few
# system calls instead of libbpf reading and parsing the 5 MB of
# /sys/kernel/btf/vmlinux (~30 ms of CPU): for programs loaded on every
# run (source/live/ksymbpf.c). Its header needs only libbpf's
# <bpf/skel_internal.h>.
option(KILN_BPF "Build the BPF programs (kiln trace's strings) when the tools are present" ON)
set(KILN_HAVE_BPF OFF)
if(KILN_BPF)
	find_program(KILN_CLANG NAMES clang clang-16 clang-15 clang-14)
	find_program(KILN_BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin)
	pkg_check_modules(LIBBPF IMPORTED_TARGET libbpf>=0.8)
	if(NOT EXISTS /sys/kernel/btf/vmlinux)
		message(STATUS "BPF: off (no /sys/kernel/btf/vmlinux on this machine)")
	elseif(NOT KILN_CLANG OR NOT KILN_BPFTOOL OR NOT LIBBPF_FOUND)
		message(STATUS "BPF: off (needs clang, bpftool and libbpf-dev)")
	else()
		set(KILN_BPF_DIR ${CMAKE_BINARY_DIR}/generated/bpf)
		file(MAKE_DIRECTORY ${KILN_BPF_DIR})
		set(KILN_VMLINUX_H ${KILN_BPF_DIR}/vmlinux.h)
		add_custom_command(OUTPUT ${KILN_VMLINUX_H}
			COMMAND ${KILN_BPFTOOL} btf dump file /sys/kernel/btf/vmlinux format c > ${KILN_VMLINUX_H}.tmp
			COMMAND ${CMAKE_COMMAND} -E rename ${KILN_VMLINUX_H}.tmp ${KILN_VMLINUX_H}
			VERBATIM)
		# One target makes vmlinux.h, and every skeleton waits for it: a
		# custom command's output listed by several targets would be made
		# by each of them, in parallel builds at the same time.
		add_custom_target(kiln_bpf_vmlinux DEPENDS ${KILN_VMLINUX_H})
		set(KILN_HAVE_BPF ON)
		message(STATUS "BPF: on (${KILN_CLANG}, ${KILN_BPFTOOL}, libbpf ${LIBBPF_VERSION})")
	endif()
endif()

function(kiln_bpf_skeleton name src)
	if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|amd64")
		set(arch x86)
	elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
		set(arch arm64)
	else()
		set(arch ${CMAKE_SYSTEM_PROCESSOR})
	endif()
	set(obj ${KILN_BPF_DIR}/${name}.bpf.o)
	set(skel ${KILN_BPF_DIR}/${name}.skel.h)
	add_custom_command(OUTPUT ${obj}
		COMMAND ${KILN_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${arch}
			-I${KILN_BPF_DIR} -c ${CMAKE_SOURCE_DIR}/${src} -o ${obj}
		DEPENDS ${CMAKE_SOURCE_DIR}/${src} ${KILN_VMLINUX_H}
		VERBATIM)
	set(light)
	if("LIGHT" IN_LIST ARGN)
		set(light -L)
	endif()
	add_custom_command(OUTPUT ${skel}
		COMMAND ${KILN_BPFTOOL} gen skeleton ${light} ${obj} name ${name} > ${skel}.tmp
		COMMAND ${CMAKE_COMMAND} -E rename ${skel}.tmp ${skel}
		DEPENDS ${obj}
		VERBATIM)
	add_custom_target(kiln_bpf_${name} DEPENDS ${skel})
	add_dependencies(kiln_bpf_${name} kiln_bpf_vmlinux)
	set(KILN_BPF_SKEL_${name} ${skel} PARENT_SCOPE)
endfunction()
