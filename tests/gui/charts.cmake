# Charts and the Compare view (widgets/charts/): the math's (models/charts) unit test, the Compare view's GUI test
# (screenshots in build/screenshots/) and the chart redraw benchmark.
studio_test(test_chart_math LABEL unit
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/test_chart_math.cpp
    LIBS studio_models)
studio_test(test_compare_gui LABEL gui
    SOURCES ${PROJECT_SOURCE_DIR}/tests/gui/test_compare_gui.cpp
    LIBS studio_widgets_charts studio_store)
studio_test(bench_chart LABEL bench TIMEOUT 120
    SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/bench_chart.cpp
    LIBS studio_widgets_charts)
