# Shared compile settings for every target of the project.
add_library(studio_options INTERFACE)
target_compile_options(studio_options INTERFACE -Wall -Wextra -Wpedantic)
target_compile_definitions(studio_options INTERFACE
    STUDIO_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    STUDIO_VERSION="${PROJECT_VERSION}")
if(STUDIO_SANITIZE)
    target_compile_options(studio_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
    target_link_options(studio_options INTERFACE -fsanitize=address,undefined)
endif()
if(STUDIO_TSAN)
    target_compile_options(studio_options INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
    target_link_options(studio_options INTERFACE -fsanitize=thread)
endif()

# Qt-specific definitions the house style asks for.
add_library(studio_qt_options INTERFACE)
target_compile_definitions(studio_qt_options INTERFACE
    QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_USE_QSTRINGBUILDER QT_NO_KEYWORDS)

# studio_engine_library(name SOURCES ... DEPS ...): one static library per engine part,
# namespaced headers reachable as <engine/part/file.h>.
function(studio_engine_library name)
    cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
    add_library(${name} STATIC ${ARG_SOURCES})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE studio_options)
endfunction()
