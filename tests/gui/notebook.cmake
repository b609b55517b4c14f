studio_test(test_notebook_gui LABEL gui TIMEOUT 600
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_notebook_gui.cpp
    LIBS studio_widgets_shell studio_notebook_runtime)
