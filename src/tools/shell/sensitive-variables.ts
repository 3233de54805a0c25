/**
 * Environment variables that change which program runs, what a program runs
 * or loads, or how the shell reads what follows: setting one makes any
 * command ask (`PATH=/tmp git status`, `GIT_SSH_COMMAND=sh git fetch`,
 * `LD_PRELOAD=x ls`).
 */

const EXACT = new Set([
  'PATH', 'CDPATH', 'HOME', 'SHELL', 'ENV', 'BASH_ENV', 'PROMPT_COMMAND', 'IFS', 'SHELLOPTS', 'BASHOPTS', 'GLOBIGNORE', 'FPATH', 'TMOUT',
  'PAGER', 'MANPAGER', 'SYSTEMD_PAGER', 'EDITOR', 'VISUAL', 'BROWSER', 'TERMINAL', 'SUDO_ASKPASS', 'SSH_ASKPASS', 'DISPLAY',
  'XDG_CONFIG_HOME', 'XDG_CONFIG_DIRS', 'XDG_DATA_HOME', 'XDG_DATA_DIRS',
  'CLASSPATH', 'RUSTC', 'RUSTC_WRAPPER', 'RUSTDOCFLAGS', 'RUSTFLAGS', 'CC', 'CXX', 'CPP', 'LD', 'AR', 'MAKEFLAGS', 'MAKE', 'MFLAGS',
  'TAR_OPTIONS', 'GREP_OPTIONS', 'RIPGREP_CONFIG_PATH', 'MANOPT', 'GZIP', 'BZIP2', 'XZ_OPT', 'ZSTD_CLEVEL', 'ZIPOPT', 'UNZIP',
  'WGETRC', 'CURL_HOME', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'OPENSSL_CONF', 'NODE_EXTRA_CA_CERTS',
  'FZF_DEFAULT_COMMAND', 'FZF_DEFAULT_OPTS', 'DOCKER_HOST', 'DOCKER_CONFIG', 'KUBECONFIG', 'TERMINFO', 'TERMCAP', 'INPUTRC', 'HISTFILE',
  'COMP_WORDBREAKS', 'TZDIR', 'LOCPATH', 'NLSPATH', 'GCONV_PATH', 'HOSTALIASES', 'RESOLV_HOST_CONF', 'MALLOC_CHECK_',
]);

/** Prefixes, compared case-insensitively (npm reads `npm_config_*` in any case). */
const PREFIXES = [
  'LD_', 'DYLD_', 'GIT_', 'PYTHON', 'PERL', 'RUBY', 'NODE_', 'NPM_CONFIG_', 'YARN_', 'PNPM_', 'BUN_', 'DENO_', 'CARGO_', 'GO', 'JAVA_', '_JAVA_',
  'JDK_', 'MAVEN_', 'GRADLE_', 'BASH_', 'PS', 'LESS', 'LUA_', 'TCL', 'R_', 'GEM_', 'BUNDLE_', 'PIP_', 'UV_', 'POETRY_', 'CONDA', 'VIRTUAL_ENV',
  'PKG_CONFIG', 'CMAKE_', 'NIX_', 'SSH_', 'GNUPG', 'GPG_', 'PAGER', 'EDITOR', 'ELECTRON_', 'CHROME_', 'QT_', 'GTK_', 'DBUS_', 'XAUTHORITY',
  'MAIL', 'COMSPEC', 'PROMPT',
];

/** Names under a sensitive prefix that only tune behaviour. */
const HARMLESS = new Set(['NODE_ENV', 'GOOS', 'GOARCH', 'GOMAXPROCS', 'PYTHONUNBUFFERED', 'PYTHONDONTWRITEBYTECODE', 'PYTHONHASHSEED', 'PYTHONIOENCODING']);

/**
 * Whether assigning `name` can change what a command runs or loads. Names
 * outside the usual character set (exported function definitions such as
 * `BASH_FUNC_git%%`, anything `env` accepts) are always sensitive.
 *
 * @example
 * isSensitiveVariable('GIT_SSH_COMMAND') // true
 * isSensitiveVariable('NODE_OPTIONS')    // true
 * isSensitiveVariable('NODE_ENV')        // false
 * isSensitiveVariable('RUST_LOG')        // false
 */
export function isSensitiveVariable(name: string): boolean {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return true;
  if (EXACT.has(name)) return true;
  if (HARMLESS.has(name)) return false;
  const upper = name.toUpperCase();
  return PREFIXES.some((prefix) => upper.startsWith(prefix));
}
