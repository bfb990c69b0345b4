"""`lhl report`: row types, the build from the warehouse, and the renderings."""
