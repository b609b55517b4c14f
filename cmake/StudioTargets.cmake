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

# studio_engine_library(name SOURCES ... DEPS ...): one Qt-free static library per engine part
# (and the launcher's core, the CLI), headers reachable from the tree's root as
# <engine/part/file.h>.
function(studio_engine_library name)
    cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
    add_library(${name} STATIC ${ARG_SOURCES})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE studio_options)
endfunction()

# studio_widget_library(name SOURCES ... DEPS ...): one static Qt library per area of the GUI side
# (the models tier, each widgets/ area, the notebook runtime), moc run on its headers, the house's
# Qt definitions passed on to whatever links it.
function(studio_widget_library name)
    cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
    add_library(${name} STATIC ${ARG_SOURCES})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} PUBLIC ${ARG_DEPS} studio_qt_options PRIVATE studio_options)
    set_target_properties(${name} PROPERTIES AUTOMOC ON)
endfunction()

# studio_executable(name SOURCES ... DEPS ...): a program of the tree (into build/bin).
function(studio_executable name)
    cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
    add_executable(${name} ${ARG_SOURCES})
    target_link_libraries(${name} PRIVATE ${ARG_DEPS} studio_options)
endfunction()
