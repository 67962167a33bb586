"""Views: terminal and HTML renderings of race states. They read the engine's state; they never change it."""
