# LibTorch: one interface target with the flags it needs and a shared precompiled header.
# USE_C10D_GLOO exposes ProcessGroupGloo (the Debian headers guard it); NCCL only on CUDA builds.
add_library(studio_torch INTERFACE)
target_link_libraries(studio_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(studio_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
target_compile_definitions(studio_torch INTERFACE USE_C10D_GLOO)
separate_arguments(studio_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
target_compile_options(studio_torch INTERFACE ${studio_torch_flags})

set(studio_cuda_found OFF)
if(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES)
    set(studio_cuda_found ON)
endif()
if(STUDIO_CUDA STREQUAL "ON" AND NOT studio_cuda_found)
    message(FATAL_ERROR "STUDIO_CUDA=ON but the LibTorch found has no CUDA")
endif()
if(studio_cuda_found AND NOT STUDIO_CUDA STREQUAL "OFF")
    target_compile_definitions(studio_torch INTERFACE USE_C10D_NCCL STUDIO_WITH_CUDA=1)
    message(STATUS "LibTorch with CUDA: NCCL process groups enabled")
endif()


# A wheel's LibTorch finds its CUDA libraries (NCCL, cuBLAS, ...) in site-packages/nvidia/*/lib
# at run time through its own rpath. The linker must resolve them there too, and the compiler
# must read the headers of those versions (nccl.h decides the layout of c10d's NCCL classes), not
# those of a CUDA toolkit of another version that the build also names.
if(studio_cuda_found)
    get_filename_component(studio_site_packages "${TORCH_INSTALL_PREFIX}/.." ABSOLUTE)
    file(GLOB studio_wheel_cuda_includes LIST_DIRECTORIES true
        "${studio_site_packages}/nvidia/*/include" "${studio_site_packages}/nvidia/*/*/include")
    list(FILTER studio_wheel_cuda_includes EXCLUDE REGEX "/cccl/")
    if(studio_wheel_cuda_includes)
        target_include_directories(studio_torch SYSTEM BEFORE INTERFACE ${studio_wheel_cuda_includes})
    endif()
    file(GLOB studio_wheel_cuda_libs LIST_DIRECTORIES true
        "${studio_site_packages}/nvidia/*/lib" "${studio_site_packages}/nvidia/*/*/lib")
    foreach(dir IN LISTS studio_wheel_cuda_libs)
        target_link_options(studio_torch INTERFACE "LINKER:-rpath-link,${dir}" "LINKER:-rpath,${dir}")
    endforeach()
endif()
