/*
 * Sanitizer defaults for spacebox-shim.  It runs inside the sandbox,
 * where the system-call filter refuses ptrace, which LeakSanitizer needs
 * to stop the world at exit: in an ASan build, leak checking is off for
 * the shim (the engine and the client keep it), so that it does not fail
 * at exit and hide the app's real exit status.
 */
#if defined(__SANITIZE_ADDRESS__)
const char	*__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "detect_leaks=0";
}
#else
/* ISO C wants at least one declaration in a file. */
typedef int	shim_san_unused;
#endif
