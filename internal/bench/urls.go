package bench

import (
	"net"
	"net/url"
	"os"
)

// login is the URL's user and password; without a user, def and
// defPass; a password in the environment variable env wins (it stays out
// of the shell's history).
func login(u *url.URL, def, defPass, env string) (user, pass string) {
	user, pass = def, defPass
	if u.User != nil {
		user = u.User.Username()
		pass, _ = u.User.Password()
	}
	if p := os.Getenv(env); p != "" {
		pass = p
	}
	return user, pass
}

// hostPort is the URL's host with its port, or the default one.
func hostPort(u *url.URL, port string) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), port)
}
