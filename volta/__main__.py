from volta.cli import main

main()
