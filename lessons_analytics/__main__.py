from lessons_analytics.cli import main

main()
