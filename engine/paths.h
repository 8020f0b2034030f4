/*
 * Where things live: $HOME, the state root, the workspace, the management
 * socket and the engine's own folders.  Computed once by each program.
 */
#ifndef SPACEBOX_PATHS_H
#define SPACEBOX_PATHS_H

/* Created by paths_init, freed by paths_free; all strings owned. */
struct sb_paths {
	char	*home;		/* canonical $HOME */
	char	*root;		/* state root, $SENCLAW_HOME or ~/.senclaw */
	char	*workspace;	/* <root>/workspace or --workspace */
	char	*apps_dir;	/* <workspace>/space-apps */
	char	*socket;	/* management socket */
	char	*sandbox_dir;	/* <root>/sandbox: engine data */
	char	*policy_dir;	/* <root>/sandbox/app-policies */
	char	*log_dir;	/* <root>/sandbox/logs: engine-owned logs */
};

/*
 * Fill in paths from the environment and the options (NULL when not
 * given).  Returns 0, or -1 with a message in err.
 */
int	paths_init(struct sb_paths *, const char *socket_opt,
	    const char *workspace_opt, char *err, size_t errlen);
void	paths_free(struct sb_paths *);

/* rm -rf: remove path and everything below it, not following links. */
int	paths_rmtree(const char *path);

/* mkdir -p with the given mode for each created component. */
int	paths_mkdirs(const char *path, int mode);

#endif
