"""JupyterHub deployment: the exchange as the course ships it, and the site a lecturer lays out."""
