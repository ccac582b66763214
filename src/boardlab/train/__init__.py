"""Training: one file per learning method (tabular RL, ES, GA, NEAT, fitted evaluations), their
plots and their command line."""
