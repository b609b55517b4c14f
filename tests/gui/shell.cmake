studio_test(test_studio_window LABEL gui TIMEOUT 600
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_studio_window.cpp LIBS studio_widgets_shell)
studio_test(test_about_dialog LABEL gui TIMEOUT 120
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_about_dialog.cpp LIBS studio_widgets_shell)
studio_test(bench_gui_latency LABEL bench TIMEOUT 300
    SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/bench_gui_latency.cpp LIBS studio_widgets_shell)
