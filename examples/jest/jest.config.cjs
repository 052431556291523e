// The examples' jest: plain CommonJS tests, no transform.
module.exports = { testEnvironment: 'node', transform: {}, testMatch: ['**/*.test.cjs'] };
