# Experiments browser: filter language, models, the browser on screen, the leaderboard bench.
studio_test(test_leaderboard_query LABEL unit
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/test_leaderboard_query.cpp
    LIBS studio_models)
studio_test(test_experiments_models LABEL unit
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/test_experiments_models.cpp
    LIBS studio_models)
studio_test(test_experiments_gui LABEL gui
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_experiments_gui.cpp
    LIBS studio_widgets_experiments studio_control Qt6::Widgets)
studio_test(bench_leaderboard LABEL bench TIMEOUT 600
    SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/bench_leaderboard.cpp
    LIBS studio_widgets_experiments Qt6::Widgets)
