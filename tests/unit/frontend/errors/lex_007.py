'''abc
