studio_test(test_console LABEL gui SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_console.cpp
    LIBS studio_widgets_console)
