"""Front-ends: the `knapper` command line and play at the terminal."""
