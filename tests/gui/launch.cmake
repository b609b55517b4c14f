# The launch dialog: form, live validation, Clone and edit round trips, and a real run.
studio_test(test_launch_dialog LABEL gui SOURCES test_launch_dialog.cpp
    LIBS studio_widgets_launch studio_control Qt6::Widgets TIMEOUT 300)
# The partitions of a Slurm cluster in the launch dialog (canned, and an unreachable slurmrestd).
studio_test(test_launch_partitions LABEL gui SOURCES test_launch_partitions.cpp
    LIBS studio_widgets_launch Qt6::Widgets TIMEOUT 120)
