int savekit_placeholder;
